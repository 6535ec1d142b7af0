// Limit probe: one single-row upsert (INSERT … ON CONFLICT DO UPDATE) per request from a
// small JSON body, over PROBE_ROWS keys. What bounds the playback PUT.
import { UPSERT, type UpsertBody } from './answers.js';
import { bareFastify, listen, PROBE_SCHEMA, probePool } from './bare.js';

const pool = probePool();
const table = `${PROBE_SCHEMA}.positions`;
await pool.query(`CREATE SCHEMA IF NOT EXISTS ${PROBE_SCHEMA}`);
await pool.query(`DROP TABLE IF EXISTS ${table}`);
await pool.query(
  `CREATE TABLE ${table} (id integer PRIMARY KEY, novel_id text NOT NULL, chapter_number integer NOT NULL, position_seconds integer NOT NULL, updated_at timestamptz NOT NULL)`,
);

const app = bareFastify();
app.put('/probe/:id', async (request) => {
  const body = request.body as UpsertBody;
  const { rows } = await pool.query({
    ...UPSERT,
    values: [Number((request.params as { id: string }).id), body.novel_id, body.chapter_number, body.position_seconds],
  });
  return { ...body, updated_at: (rows[0].updated_at as Date).toISOString() };
});
await listen(app, pool);
