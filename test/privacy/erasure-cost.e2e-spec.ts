import pg from 'pg';
import { SCOPES } from '../../src/modules/identity/index.js';
import { partnerClient, type PartnerClient } from '../fixtures/partner-client.js';
import { bearer, useTestApp } from '../support/test-app.js';

/**
 * DECISIONS 29 at scale: a subscriber's export and erasure read that subscriber's raw reading
 * activity through the index by subscriber (migration 1764201000000), never a scan of the
 * partitions, which hold every partner's activity: without the index the erasure's cost grew
 * with the whole service's history, past the statement limit. Counted in PostgreSQL's own scan
 * statistics of the partitions, over the real HTTP requests.
 */
const t = useTestApp({ LOG_LEVEL: 'error' });
const SUBSCRIBER = 'leaving@example';
let db: pg.Client;

beforeAll(async () => {
  db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
});
afterAll(() => db?.end());

/** Raw activity rows as the service writes them, over the last 40 days; the rollup trigger is left out, as it reads nothing back. */
async function seedActivity(partnerId: string, subscribers: (i: number) => string, count: number): Promise<void> {
  await db.query('BEGIN');
  await db.query(`SET LOCAL session_replication_role = replica`);
  await db.query(
    `INSERT INTO reading_activity (partner_id, environment, subscriber_id, novel_id, chapter_number, kind, occurred_at)
     SELECT $1, 'live', ($2::text[])[1 + i % cardinality($2::text[])], 'novel-' || (i % 100), 1 + i % 30, 'text', now() - (i % 40) * interval '1 day'
       FROM generate_series(1, $3::int) AS i`,
    [partnerId, Array.from({ length: Math.min(count, 1000) }, (_, i) => subscribers(i)), count],
  );
  await db.query('COMMIT');
}

/**
 * Rows of the activity partitions read by sequential scans so far, and index scans, as
 * PostgreSQL counts them (a partition with no rows may be scanned: it reads none).
 */
async function activityScans(): Promise<{ sequential: number; byIndex: number }> {
  const { rows } = await db.query<{ sequential: string; by_index: string }>(
    `SELECT coalesce(sum(s.seq_tup_read), 0) AS sequential, coalesce(sum(s.idx_scan), 0) AS by_index
       FROM pg_inherits i JOIN pg_stat_user_tables s ON s.relid = i.inhrelid
      WHERE i.inhparent = 'reading_activity'::regclass`,
  );
  return { sequential: Number(rows[0].sequential), byIndex: Number(rows[0].by_index) };
}

const platform = (client: PartnerClient, method: 'GET' | 'DELETE', path: string) =>
  t.inject({ method, url: `/platform/v1${path}`, headers: bearer(client.token) });

it("exports and erases a subscriber's reading activity through its own rows, never a scan of every partner's", async () => {
  const leaving = await partnerClient(t, { scopes: [...SCOPES] });
  const other = await partnerClient(t, { scopes: [...SCOPES] });
  await seedActivity(other.partnerId, (i) => `reader-${i}`, 150_000);
  await seedActivity(leaving.partnerId, (i) => `reader-${i}`, 50_000);
  await seedActivity(leaving.partnerId, () => SUBSCRIBER, 40);
  await db.query('ANALYZE reading_activity');
  const before = await activityScans();

  expect((await platform(leaving, 'GET', `/subscribers/${encodeURIComponent(SUBSCRIBER)}/export`)).statusCode).toBe(200);
  const erased = await platform(leaving, 'DELETE', `/subscribers/${encodeURIComponent(SUBSCRIBER)}`);
  expect(erased.statusCode).toBe(200);
  expect(erased.json().erased.reading).toBe(40);

  // Each backend reports its counts when it next goes idle, within about a second.
  let after = await activityScans();
  for (let waited = 0; after.byIndex - before.byIndex < 2 && waited < 15_000; waited += 250) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    after = await activityScans();
  }
  expect({ rowsReadSequentially: after.sequential - before.sequential, byIndex: after.byIndex - before.byIndex >= 2 }).toEqual({
    rowsReadSequentially: 0,
    byIndex: true,
  });
  const left = await db.query(`SELECT count(*)::int AS n FROM reading_activity WHERE partner_id = $1 GROUP BY subscriber_id = $2 ORDER BY 1`, [
    leaving.partnerId,
    SUBSCRIBER,
  ]);
  expect(left.rows).toEqual([{ n: 50_000 }]);
});
