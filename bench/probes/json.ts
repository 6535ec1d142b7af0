// Limit probe: a small fixed JSON answer, no database. What bounds the endpoints whose answer
// does not depend on the caller (the catalog, the categories, the chapter list without a
// subscriber) once their data is served from memory. `/probe/page`: the same with an answer
// as large as a catalog page (PROBE_PAGE_BYTES).
import { JSON_PROBE_ANSWER, pageProbeAnswer, probePageBytes } from './answers.js';
import { bareFastify, listen } from './bare.js';

const app = bareFastify();
const page = pageProbeAnswer(probePageBytes());
app.get('/probe', async () => JSON_PROBE_ANSWER);
app.get('/probe/page', async (_request, reply) => reply.header('content-type', 'application/json; charset=utf-8').send(page));
await listen(app);
