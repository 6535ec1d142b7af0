import { DataSource } from 'typeorm';
import { RollupRetentionJob } from '../../src/modules/analytics/application/rollup-retention.job.js';
import { partnerClient, type PartnerClient } from '../fixtures/partner-client.js';
import { startTestApp, useTestApp } from '../support/test-app.js';

/**
 * DECISIONS 29, ADR 0143: past their retention the daily rollups keep their figures but no
 * subscriber id, and the engagement report of that period answers as before.
 */
const t = useTestApp({ ACTIVITY_RETENTION_DAYS: '400' });
let db: DataSource;
let client: PartnerClient;

beforeAll(async () => {
  db = t.app.get(DataSource);
  client = await partnerClient(t);
});

const NOW = new Date('2026-11-28T12:00:00Z');
/** 400 days before NOW: rows of days before it are past retention. */
const CUTOFF = '2025-10-24';

async function readerDay(subscriber: string, day: string, previousDay: string) {
  await db.query(`INSERT INTO reading_reader_days (partner_id, environment, subscriber_id, day, previous_day) VALUES ($1, 'live', $2, $3, $4)`, [
    client.partnerId,
    subscriber,
    day,
    previousDay,
  ]);
  await db.query(
    `INSERT INTO reading_chapter_days (partner_id, environment, subscriber_id, novel_id, chapter_number, day, previous_day) VALUES ($1, 'live', $2, 'n', 1, $3, $4)`,
    [client.partnerId, subscriber, day, previousDay],
  );
}

const report = async (start: string, end: string) => {
  const response = await client.call('GET', `/analytics/engagement?period_start=${start}&period_end=${end}`);
  expect(response.statusCode).toBe(200);
  const { generated_at: _, ...answer } = response.json();
  return answer;
};

const rowsOf = async (subscriber: string) =>
  (await db.query(`SELECT count(*)::int AS n FROM reading_reader_days WHERE subscriber_id = $1`, [subscriber]))[0].n +
  (await db.query(`SELECT count(*)::int AS n FROM reading_chapter_days WHERE subscriber_id = $1`, [subscriber]))[0].n;

test('rows past retention lose the subscriber id, not their figures; younger rows keep it', async () => {
  // Two readers in June 2025 (past retention), one of them back on two days; one reader now.
  await readerDay('old-a', '2025-06-10', '-infinity');
  await readerDay('old-a', '2025-06-12', '2025-06-10');
  await readerDay('old-b', '2025-06-11', '-infinity');
  await readerDay('recent', '2026-11-20', '-infinity');
  const june = await report('2025-06-01', '2025-06-30');
  const lateJune = await report('2025-06-11', '2025-06-30');
  const november = await report('2026-11-01', '2026-11-28');
  expect(june).toMatchObject({ active_readers: 2 });
  expect(lateJune).toMatchObject({ active_readers: 2 });

  const job = t.app.get(RollupRetentionJob);
  expect(job.retentionDays).toBe(400);
  expect(await job.anonymiseExpired(NOW)).toBe(6);

  expect(await rowsOf('old-a')).toBe(0);
  expect(await rowsOf('old-b')).toBe(0);
  expect(await rowsOf('recent')).toBe(2);
  const standIns: { subscriber_id: string }[] = await db.query(
    `SELECT subscriber_id FROM reading_reader_days WHERE partner_id = $1 AND day < $2 UNION ALL
     SELECT subscriber_id FROM reading_chapter_days WHERE partner_id = $1 AND day < $2`,
    [client.partnerId, CUTOFF],
  );
  // Six rows, six stand-ins: none links two rows of one reader.
  expect(new Set(standIns.map((row) => row.subscriber_id)).size).toBe(6);
  for (const { subscriber_id } of standIns) expect(subscriber_id).toMatch(/^~[0-9a-f-]{36}$/);

  expect(await report('2025-06-01', '2025-06-30')).toEqual(june);
  expect(await report('2025-06-11', '2025-06-30')).toEqual(lateJune);
  expect(await report('2026-11-01', '2026-11-28')).toEqual(november);
  // Running again (another replica, the next hour) changes nothing more.
  expect(await job.anonymiseExpired(NOW)).toBe(0);
});

test('the ids are kept at least a report window and a day, however short the activity retention', async () => {
  const short = await startTestApp({ ACTIVITY_RETENTION_DAYS: '30' }, t.databaseUrl);
  try {
    expect(short.app.get(RollupRetentionJob).retentionDays).toBe(367);
  } finally {
    await short.close();
  }
});
