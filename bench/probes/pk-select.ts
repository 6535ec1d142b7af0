// Limit probe: one single-row primary-key SELECT per request, over PROBE_ROWS rows shaped
// like a playback position. What bounds a read that needs one row of the subscriber's state.
import { PK_SELECT, type ProbeRow, probeRowAnswer } from './answers.js';
import { bareFastify, listen, PROBE_ROWS, PROBE_SCHEMA, probePool } from './bare.js';

const pool = probePool();
const table = `${PROBE_SCHEMA}.rows`;
await pool.query(`CREATE SCHEMA IF NOT EXISTS ${PROBE_SCHEMA}`);
await pool.query(`DROP TABLE IF EXISTS ${table}`);
await pool.query(
  `CREATE TABLE ${table} (id integer PRIMARY KEY, novel_id text NOT NULL, chapter_number integer NOT NULL, position_seconds integer NOT NULL, updated_at timestamptz NOT NULL)`,
);
await pool.query(`INSERT INTO ${table} SELECT i, 'novel-' || (i % 200), 1 + i % 30, i % 3600, now() FROM generate_series(0, $1::integer - 1) AS i`, [
  PROBE_ROWS,
]);
await pool.query(`VACUUM ANALYZE ${table}`);

const app = bareFastify();
app.get('/probe/:id', async (request, reply) => {
  const { rows } = await pool.query<ProbeRow>({ ...PK_SELECT, values: [Number((request.params as { id: string }).id)] });
  if (rows.length === 0) return reply.status(404).send({ error: 'not_found' });
  return probeRowAnswer(rows[0]);
});
await listen(app, pool);
