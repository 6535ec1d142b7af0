// Limit probe: a small fixed JSON answer, no database. What bounds the endpoints whose answer
// does not depend on the caller (the catalog, the categories, the chapter list without a
// subscriber) once their data is served from memory.
import { bareFastify, listen } from './bare.js';

const app = bareFastify();
const ANSWER = { data: [{ id: 'romance', name: 'Romance', sort_order: 1 }] };
app.get('/probe', async () => ANSWER);
await listen(app);
