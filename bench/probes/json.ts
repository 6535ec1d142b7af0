// Limit probe: a small fixed JSON answer, no database. What bounds the endpoints whose answer
// does not depend on the caller (the catalog, the categories, the chapter list without a
// subscriber) once their data is served from memory.
import { JSON_PROBE_ANSWER } from './answers.js';
import { bareFastify, listen } from './bare.js';

const app = bareFastify();
app.get('/probe', async () => JSON_PROBE_ANSWER);
await listen(app);
