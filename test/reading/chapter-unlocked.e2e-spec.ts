import { DataSource } from 'typeorm';
import { ChapterUnlockJob } from '../../src/modules/reading/application/chapter-unlock.job.js';
import { chapterReleaseAt } from '../../src/modules/drip/index.js';
import { Db } from '../../src/shared/persistence/db.js';
import { UnitOfWork } from '../../src/shared/persistence/unit-of-work.js';
import { importCatalog, manifest, manifestNovel } from '../fixtures/catalog-fixture.js';
import { partnerClient, type PartnerClient } from '../fixtures/partner-client.js';
import { useTwoReplicas } from '../support/replicas.js';
import { bearer } from '../support/test-app.js';

/**
 * DECISIONS 23: chapter.unlocked, emitted by a scheduled job. The job is driven here with a
 * simulated clock (`runOnce(now)`), by two service instances on one database.
 */
let db: DataSource;

const NOVEL = 'drip-five';
const SETTINGS = { WEBHOOK_WORKER: 'false' };

const replicas = useTwoReplicas(SETTINGS);

beforeAll(async () => {
  db = replicas.first.app.get(DataSource);
  await importCatalog(replicas.first, manifest([manifestNovel(NOVEL, { chapters: 5 }), manifestNovel('drip-three', { chapters: 3 })]), 'sandbox');
});

interface Partner {
  client: PartnerClient;
  token: string;
}

/** A sandbox partner (sandbox endpoints may point at loopback), subscribed to `events`. */
async function partner(events: string[] = ['chapter.unlocked']): Promise<Partner> {
  const client = await partnerClient(replicas.first, { environment: 'sandbox' });
  if (events.length) {
    const created = await replicas.first.inject({
      method: 'POST',
      url: '/platform/v1/webhook-endpoints',
      headers: bearer(client.token),
      payload: { url: 'http://127.0.0.1:9/hooks', events },
    });
    expect(created.statusCode).toBe(201);
  }
  return { client, token: client.token };
}

let subscribers = 0;
async function reader(p: Partner, { plan, novel = NOVEL, startedAt }: { plan?: string; novel?: string; startedAt?: string } = {}) {
  const subscriberId = `reader-${++subscribers}`;
  await p.client.entitle(subscriberId, { plan });
  const opened = await p.client.call('POST', `/subscribers/${subscriberId}/novels`, { novel_id: novel, ...(startedAt && { started_at: startedAt }) });
  expect(opened.statusCode).toBe(201);
  return { subscriberId, startedAt: new Date(opened.json().started_at) };
}

interface FeedItem {
  seq: number;
  event: string;
  occurred_at: string;
  data: { subscriber_id: string; novel_id: string; chapter_number: number; chapter_id: string };
}

async function unlocks(p: Partner, subscriberId?: string): Promise<FeedItem[]> {
  const response = await replicas.first.inject({ method: 'GET', url: '/platform/v1/events?limit=500', headers: bearer(p.token) });
  expect(response.statusCode).toBe(200);
  return (response.json().data as FeedItem[]).filter((e) => e.event === 'chapter.unlocked' && (!subscriberId || e.data.subscriber_id === subscriberId));
}

const release = (startedAt: Date, chapter: number, earlyAccess = false) => chapterReleaseAt({ startedAt, earlyAccess }, chapter);
const plus = (instant: Date, seconds: number) => new Date(instant.getTime() + seconds * 1000);
/** Both instances run the job at the same simulated instant. */
const runBoth = (now: Date) => Promise.all([replicas.first, replicas.second].map((app) => app.app.get(ChapterUnlockJob).runOnce(now)));

it('announces a chapter within 2 minutes of its release, exactly once with two instances running the job', async () => {
  const p = await partner();
  const { subscriberId, startedAt } = await reader(p);
  const chapter2 = release(startedAt, 2);

  await runBoth(plus(chapter2, -1));
  expect(await unlocks(p, subscriberId)).toEqual([]);

  await runBoth(plus(chapter2, 60));
  await runBoth(plus(chapter2, 90));
  expect(await unlocks(p, subscriberId)).toEqual([
    {
      seq: expect.any(Number),
      event_id: expect.any(String),
      event: 'chapter.unlocked',
      occurred_at: chapter2.toISOString(),
      data: { subscriber_id: subscriberId, novel_id: NOVEL, chapter_number: 2, chapter_id: `${NOVEL}-ch2` },
    },
  ]);
});

it('after downtime, announces the missed chapters once each, in order', async () => {
  const p = await partner();
  const early = await reader(p, { plan: 'text_early' });
  const standard = await reader(p);
  // Three days without a run: both readers' chapters 2 to 4 (early: 3 to 5) came due meanwhile.
  const now = plus(release(standard.startedAt, 4), 3600);
  await runBoth(now);
  await runBoth(plus(now, 30));

  const events = await unlocks(p);
  const chaptersOf = (subscriberId: string) => events.filter((e) => e.data.subscriber_id === subscriberId).map((e) => e.data.chapter_number);
  expect(chaptersOf(standard.subscriberId)).toEqual([2, 3, 4]);
  // With early access chapter 2 was released on opening (not announced); 3 to 5 are a day earlier.
  expect(chaptersOf(early.subscriberId)).toEqual([3, 4, 5]);
  for (const e of events.filter((e) => e.data.subscriber_id === early.subscriberId)) {
    expect(e.occurred_at).toBe(release(early.startedAt, e.data.chapter_number, true).toISOString());
  }
  const instants = events.map((e) => e.occurred_at);
  expect(instants).toEqual([...instants].sort());
});

it('moves pending announcements when the plan gains or loses early access', async () => {
  const p = await partner();
  const gains = await reader(p);
  const loses = await reader(p, { plan: 'text_early' });
  await p.client.entitle(gains.subscriberId, { plan: 'text_early' });
  await p.client.entitle(loses.subscriberId, { plan: 'text_standard' });

  // At the standard chapter-2 instant the reader who gained early access gets chapter 3. The
  // one who lost it had chapter 2 on opening; its chapter 3 moves a day later. Announcements
  // never go back to a chapter already passed.
  const chapter2 = release(gains.startedAt, 2);
  await runBoth(plus(chapter2, 60));
  expect((await unlocks(p, gains.subscriberId)).map((e) => e.data.chapter_number)).toEqual([3]);
  expect(await unlocks(p, loses.subscriberId)).toEqual([]);
  await runBoth(plus(release(loses.startedAt, 3), 60));
  expect((await unlocks(p, loses.subscriberId)).map((e) => [e.data.chapter_number, e.occurred_at])).toEqual([[3, release(loses.startedAt, 3).toISOString()]]);
});

it('announces nothing more for a removed or finished novel, nor for a partner that did not subscribe', async () => {
  const p = await partner();
  const removed = await reader(p);
  const finished = await reader(p);
  expect((await p.client.call('DELETE', `/subscribers/${removed.subscriberId}/novels/${NOVEL}`)).statusCode).toBe(204);
  await db.query(`UPDATE novel_progress SET finished_at = now(), chosen_choice_id = 'stay' WHERE partner_id = $1 AND subscriber_id = $2`, [
    p.client.partnerId,
    finished.subscriberId,
  ]);
  const unsubscribed = await partner(['novel.finished']);
  const quiet = await reader(unsubscribed);

  await runBoth(plus(release(removed.startedAt, 5), 60));
  expect(await unlocks(p)).toEqual([]);
  expect(await unlocks(unsubscribed, quiet.subscriberId)).toEqual([]);
  const left = await db.query(`SELECT count(*)::int AS n FROM chapter_unlock_schedule WHERE partner_id = ANY ($1)`, [
    [p.client.partnerId, unsubscribed.client.partnerId],
  ]);
  expect(left[0].n).toBe(0);
});

it('announces only instants after the partner subscribed and after the novel was opened: a backdated start replays nothing', async () => {
  const p = await partner();
  const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000).toISOString();
  const backdated = await reader(p, { startedAt: twoDaysAgo });
  const late = await reader(p);
  // The endpoint is registered an hour after the late reader's chapter 2 was released.
  await db.query(`UPDATE webhook_endpoints SET created_at = $2 WHERE partner_id = $1`, [p.client.partnerId, plus(release(late.startedAt, 2), 3600)]);

  await runBoth(plus(release(backdated.startedAt, 5), 7200));
  const chaptersOf = async (subscriberId: string) => (await unlocks(p, subscriberId)).map((e) => e.data.chapter_number);
  // Chapters 1 to 3 of the backdated reading were out when it was opened, chapter 4 came
  // with the late reader's chapter 2, before the endpoint; 5 came after it.
  expect(await chaptersOf(backdated.subscriberId)).toEqual([5]);
  // The late reader's chapter 2 came before the endpoint existed; chapter 3 after.
  expect(await chaptersOf(late.subscriberId)).toEqual([3]);
});

it('reads rows in proportion to the unlocks due, not to the readers: 20 000 readers, 100 due', async () => {
  const p = await partner();
  const now = new Date();
  const due = plus(now, -60);
  await db.query(`UPDATE webhook_endpoints SET created_at = now() - interval '7 days' WHERE partner_id = $1`, [p.client.partnerId]);
  await db.query(
    `INSERT INTO novel_progress (partner_id, environment, subscriber_id, novel_id, started_at)
       SELECT $1, 'sandbox', 'bulk-' || i, $2, $3 FROM generate_series(1, 20000) AS i;
     `.trim(),
    [p.client.partnerId, NOVEL, plus(now, -86_400)],
  );
  await db.query(
    `INSERT INTO chapter_unlock_schedule (partner_id, environment, subscriber_id, novel_id, started_at, not_before, next_chapter, next_unlock_at)
       SELECT $1, 'sandbox', 'bulk-' || i, $2, $3, $3, 2, CASE WHEN i <= 100 THEN $4::timestamptz ELSE $5::timestamptz END FROM generate_series(1, 20000) AS i`,
    [p.client.partnerId, NOVEL, plus(now, -86_400), due, plus(now, 86_400 * 30)],
  );
  await db.query(
    `INSERT INTO entitlements (partner_id, environment, subscriber_id, product, status, internal_plan, effective_at)
       SELECT $1, 'sandbox', 'bulk-' || i, 'textapp', 'active', 'text_standard', now() FROM generate_series(1, 100) AS i`,
    [p.client.partnerId],
  );
  await db.query('ANALYZE chapter_unlock_schedule; ANALYZE novel_progress');

  // The run joins this transaction, so PostgreSQL's per-transaction counters see every row it read.
  const tables = ['chapter_unlock_schedule', 'novel_progress', 'novels', 'entitlements', 'webhook_endpoints'];
  const rowsRead = async () => {
    // Rows read by sequential scans of the tables, and index entries returned by their indexes.
    const [row] = await replicas.first.app.get(Db).query<{ rows: number; schedule_rows: number }>(
      `WITH relations AS (
         SELECT c.oid, c.relname AS table_name FROM pg_class c WHERE c.relname = ANY ($1) AND c.relkind = 'r'
         UNION ALL
         SELECT i.indexrelid, c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid WHERE c.relname = ANY ($1)
       )
       SELECT coalesce(sum(pg_stat_get_xact_tuples_returned(oid)), 0)::int AS rows,
              coalesce(sum(pg_stat_get_xact_tuples_returned(oid)) FILTER (WHERE table_name = 'chapter_unlock_schedule'), 0)::int AS schedule_rows
         FROM relations`,
      [tables],
    );
    return row;
  };
  let measured = { rows: 0, schedule_rows: 0 };
  let announced = 0;
  const rollback = new Error('roll back');
  await replicas.first.app
    .get(UnitOfWork)
    .run(async () => {
      const before = await rowsRead();
      announced = (await replicas.first.app.get(ChapterUnlockJob).runOnce(now)).announced;
      const after = await rowsRead();
      measured = { rows: after.rows - before.rows, schedule_rows: after.schedule_rows - before.schedule_rows };
      throw rollback;
    })
    .catch((error: unknown) => {
      if (error !== rollback) throw error;
    });

  expect(announced).toBe(100);
  expect(measured.schedule_rows).toBeGreaterThanOrEqual(100);
  expect(measured.schedule_rows).toBeLessThanOrEqual(5 * 100);
  expect(measured.rows).toBeLessThanOrEqual(20 * 100);
});
