import pg from 'pg';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** What the webhook queue's cost tests share: the service, rows made by SQL, and a statement's cost in buffers. */

/**
 * The service on a database of its own with its delivery worker off (the tests claim by
 * themselves, so rows stay as they put them), and a client of that database. Read the fields
 * inside tests and hooks (they are filled in `beforeAll`).
 */
export function useQueueTestApp(): { app: TestApp; db: pg.Client } {
  const handle = {} as { app: TestApp; db: pg.Client };
  beforeAll(async () => {
    handle.app = await startTestApp({ WEBHOOK_WORKER: 'false', WEBHOOK_ALLOW_INSECURE_URLS: 'true' });
    handle.db = new pg.Client({ connectionString: handle.app.databaseUrl });
    await handle.db.connect();
  });
  afterAll(async () => {
    await handle.db?.end();
    await handle.app?.close();
  });
  return handle;
}

/** `count` deliveries (and their events) to the endpoint, due an hour ago, or already delivered. */
export async function addDeliveries(
  db: pg.Client,
  partnerId: string,
  endpointId: string,
  count: number,
  firstSeq: number,
  status: 'pending' | 'delivered' = 'pending',
): Promise<void> {
  await db.query(
    `WITH events AS (
       INSERT INTO webhook_events (event_id, partner_id, environment, event_type, payload, occurred_at, seq)
       SELECT gen_random_uuid(), $1, 'live', 'novel.finished', '{}', now(), i FROM generate_series($3::int, $3::int + $4::int - 1) AS i
       RETURNING event_id, seq
     )
     INSERT INTO webhook_deliveries (partner_id, environment, event_id, endpoint_id, status, next_attempt_at)
     SELECT $1, 'live', event_id, $2, $5, CASE WHEN $5 = 'pending' THEN now() - interval '1 hour' - seq * interval '1 ms' END FROM events`,
    [partnerId, endpointId, firstSeq, count, status],
  );
  await db.query('ANALYZE webhook_deliveries');
}

/**
 * Shared buffers the statement touched, run for real and rolled back: what PostgreSQL read,
 * which does not depend on the machine.
 */
export async function buffersRead(db: pg.Client, sql: string, parameters: unknown[]): Promise<number> {
  await db.query('BEGIN');
  try {
    const { rows } = await db.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`, parameters);
    const plan = rows[0]['QUERY PLAN'][0].Plan;
    return plan['Shared Hit Blocks'] + plan['Shared Read Blocks'];
  } finally {
    await db.query('ROLLBACK');
  }
}
