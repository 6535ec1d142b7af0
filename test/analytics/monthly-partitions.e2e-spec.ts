import { DataSource } from 'typeorm';
import { MONTHS_AHEAD, PartitionMaintenanceJob } from '../../src/database/partition-maintenance.job.js';
import type { IssuedCredential } from '../../src/modules/identity/index.js';
import { bearer, startTestApp, type TestApp } from '../support/test-app.js';

/**
 * reading_activity and stream_url_issues partitioned by month (ADR 0100): rows land in
 * their month, the rollup trigger on the parent still fires, the maintenance job creates
 * months ahead once however many replicas run it, and retention drops whole months past
 * the setting without changing the engagement report (ADR 0100).
 */
let first: TestApp;
let second: TestApp;
let db: DataSource;
let partner: IssuedCredential;
let token: string;

beforeAll(async () => {
  first = await startTestApp({ ACTIVITY_RETENTION_DAYS: '400', STREAM_AUDIT_RETENTION_DAYS: '400' });
  // A second replica on the same database.
  second = await startTestApp({ ACTIVITY_RETENTION_DAYS: '400', STREAM_AUDIT_RETENTION_DAYS: '400' }, first.databaseUrl);
  db = first.app.get(DataSource);
  partner = await first.partner({ scopes: ['textapp:analytics:read'] });
  token = await first.token(partner);
});
afterAll(async () => {
  await second?.close();
  await first?.close();
});

/** The first day of the UTC month `months` after the current one, as YYYY-MM-DD. */
function monthStart(months: number, from = new Date()): string {
  return new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + months, 1)).toISOString().slice(0, 10);
}

const partitionName = (table: string, day: string) => `${table}_p${day.slice(0, 4)}_${day.slice(5, 7)}`;

async function partitions(table: string): Promise<{ name: string; bound: string }[]> {
  return db.query(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
     FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = $1::regclass ORDER BY c.relname`,
    [table],
  );
}

async function record(subscriber: string, at: string): Promise<string> {
  const [row] = await db.query(
    `INSERT INTO reading_activity (partner_id, environment, subscriber_id, novel_id, chapter_number, kind, occurred_at)
     VALUES ($1, 'live', $2, 'partitioned-novel', 1, 'text', $3) RETURNING tableoid::regclass::text AS partition`,
    [partner.partner_id, subscriber, at],
  );
  return row.partition;
}

/** The engagement report's figures for the period (its time of generation left out). */
async function report(start: string, end: string): Promise<Record<string, unknown>> {
  const response = await first.inject({ method: 'GET', url: `/v1/analytics/engagement?period_start=${start}&period_end=${end}`, headers: bearer(token) });
  expect(response.statusCode).toBe(200);
  return Object.fromEntries(Object.entries(response.json<Record<string, unknown>>()).filter(([key]) => !/^generated_?at$/i.test(key)));
}

const NEXT_MONTH = monthStart(1);
const LAST_DAY_OF_NEXT_MONTH = new Date(Date.parse(`${monthStart(2)}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);

describe('monthly partitions', () => {
  it('are partitioned tables whose months ahead exist from the start, with no DEFAULT partition', async () => {
    for (const table of ['reading_activity', 'stream_url_issues']) {
      const [parent] = await db.query(`SELECT partstrat FROM pg_partitioned_table WHERE partrelid = $1::regclass`, [table]);
      expect(parent).toEqual({ partstrat: 'r' });
      const names = (await partitions(table)).map((partition) => partition.name);
      for (let month = 1; month <= MONTHS_AHEAD; month += 1) expect(names).toContain(partitionName(table, monthStart(month)));
      expect((await partitions(table)).filter((partition) => partition.bound === 'DEFAULT')).toEqual([]);
    }
  });

  it('routes each row to the partition of its month and rolls it up through the trigger on the parent', async () => {
    expect(await record('partitioned-reader', '2020-03-04T10:00:00Z')).toBe('reading_activity_before');
    expect(await record('partitioned-reader', `${NEXT_MONTH}T10:00:00Z`)).toBe(partitionName('reading_activity', NEXT_MONTH));
    expect(await record('partitioned-reader', `${LAST_DAY_OF_NEXT_MONTH}T23:59:59Z`)).toBe(partitionName('reading_activity', NEXT_MONTH));
    const days = await db.query(
      `SELECT to_char(day, 'YYYY-MM-DD') AS day, previous_day::text AS previous_day FROM reading_reader_days
       WHERE partner_id = $1 AND subscriber_id = 'partitioned-reader' ORDER BY day`,
      [partner.partner_id],
    );
    expect(days).toEqual([
      { day: '2020-03-04', previous_day: '-infinity' },
      { day: NEXT_MONTH, previous_day: '2020-03-04' },
      { day: LAST_DAY_OF_NEXT_MONTH, previous_day: NEXT_MONTH },
    ]);
  });

  it('creates each month ahead once when replicas run the job at the same moment', async () => {
    const later = new Date(`${monthStart(10)}T12:00:00Z`);
    const before = (await partitions('reading_activity')).length;
    const runs = await Promise.all([first.app.get(PartitionMaintenanceJob).maintain(later), second.app.get(PartitionMaintenanceJob).maintain(later)]);
    const created = runs
      .flat()
      .filter((change) => change.table === 'reading_activity')
      .reduce((sum, change) => sum + change.created, 0);
    const names = (await partitions('reading_activity')).map((partition) => partition.name);
    // Up to the month MONTHS_AHEAD after `later`, every month once, none dropped.
    expect(names).toContain(partitionName('reading_activity', monthStart(10 + MONTHS_AHEAD)));
    expect(names).not.toContain(partitionName('reading_activity', monthStart(11 + MONTHS_AHEAD)));
    expect(created).toBe(names.length - before);
    // The migration made months 1 to MONTHS_AHEAD; months MONTHS_AHEAD + 1 to 10 + MONTHS_AHEAD are new.
    expect(created).toBe(10);
    expect(await first.app.get(PartitionMaintenanceJob).maintain(later)).toEqual([
      { table: 'reading_activity', created: 0, dropped: 0 },
      { table: 'stream_url_issues', created: 0, dropped: 0 },
    ]);
  });

  it('drops a partition once its whole month is older than the retention, and the report is unchanged', async () => {
    const inside = await report(NEXT_MONTH, LAST_DAY_OF_NEXT_MONTH);
    const dropped = await report('2020-03-01', '2020-03-31');
    // Next month's reader counts: the report reads the rollups, which hold it.
    expect(Object.values(inside)).toContain(1);
    // 400 days after a date ten days into next month: the partition holding everything before
    // next month ended more than 400 days ago, next month's ends less than 400 days ago.
    const now = new Date(Date.parse(`${NEXT_MONTH}T00:00:00Z`) + 410 * 86_400_000);
    const changes = await first.app.get(PartitionMaintenanceJob).maintain(now);
    expect(changes.map(({ table, dropped }) => ({ table, dropped }))).toEqual([
      { table: 'reading_activity', dropped: 1 },
      { table: 'stream_url_issues', dropped: 1 },
    ]);
    const names = (await partitions('reading_activity')).map((partition) => partition.name);
    expect(names).not.toContain('reading_activity_before');
    expect(names).toContain(partitionName('reading_activity', NEXT_MONTH));
    const [{ count }] = await db.query(`SELECT count(*)::int AS count FROM reading_activity WHERE partner_id = $1`, [partner.partner_id]);
    expect(count).toBe(2);
    expect(await report(NEXT_MONTH, LAST_DAY_OF_NEXT_MONTH)).toEqual(inside);
    // The rollups are not partitioned: even a dropped month's report stays as it was.
    expect(await report('2020-03-01', '2020-03-31')).toEqual(dropped);
    // The id sequence belongs to the parent and outlives the partition that had it first.
    const [{ sequence }] = await db.query(`SELECT pg_get_serial_sequence('stream_url_issues', 'id') AS sequence`);
    expect(sequence).toBe('public.stream_url_issues_id_seq');
  });
});
