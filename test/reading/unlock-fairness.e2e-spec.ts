import { jest } from '@jest/globals';
import { DataSource } from 'typeorm';
import { chapterReleaseAt } from '../../src/modules/drip/index.js';
import { ChapterUnlockJob } from '../../src/modules/reading/application/chapter-unlock.job.js';
import { UnlockScheduleRepository, type ScheduledUnlock } from '../../src/modules/reading/domain/unlock-schedule.js';
import { importCatalog, manifest, manifestNovel } from '../fixtures/catalog-fixture.js';
import { partnerClient } from '../fixtures/partner-client.js';
import { bearer, useTestApp } from '../support/test-app.js';

/**
 * The real-time unlock job serves live readers before the sandbox, and each partner a
 * share (ADR 0151): a sandbox backlog of one partner cannot push another partner's
 * `chapter.unlocked` past its two-minute promise.
 */
const t = useTestApp({ WEBHOOK_WORKER: 'false', WEBHOOK_ALLOW_INSECURE_URLS: 'true' });
const NOVEL = 'fair-five';
const BACKLOG = 100_000;

it("announces a live reader in the job's first batch behind 100 000 due sandbox rows, and a second sandbox partner in the first sandbox batch", async () => {
  await importCatalog(t, manifest([manifestNovel(NOVEL, { chapters: 5 })]), 'live');
  await importCatalog(t, manifest([manifestNovel(NOVEL, { chapters: 5 })]), 'sandbox');
  const db = t.app.get(DataSource);

  // The live partner: a reader whose chapter 2 is released, and an endpoint older than it.
  const live = await partnerClient(t);
  expect(
    (
      await t.inject({
        method: 'POST',
        url: '/platform/v1/webhook-endpoints',
        headers: bearer(live.token),
        payload: { url: 'http://127.0.0.1:9/hooks', events: ['chapter.unlocked'] },
      })
    ).statusCode,
  ).toBe(201);
  await db.query(`UPDATE webhook_endpoints SET created_at = now() - interval '7 days' WHERE partner_id = $1`, [live.partnerId]);
  await live.entitle('live-reader');
  const opened = await live.call('POST', '/subscribers/live-reader/novels', { novel_id: NOVEL });
  expect(opened.statusCode).toBe(201);
  const now = new Date(chapterReleaseAt({ startedAt: new Date(opened.json().started_at), earlyAccess: false }, 2).getTime() + 60_000);

  // One sandbox partner's backlog, all due an hour before the live reader's chapter, and
  // another sandbox partner's single due row.
  const flooding = await t.partner({ environment: 'sandbox' });
  const other = await t.partner({ environment: 'sandbox' });
  const dueEarlier = new Date(now.getTime() - 3_600_000);
  await db.query(
    `INSERT INTO chapter_unlock_schedule (partner_id, environment, subscriber_id, novel_id, started_at, not_before, next_chapter, next_unlock_at)
       SELECT $1::uuid, 'sandbox', 'bulk-' || i, $2, $3::timestamptz, $3::timestamptz, 2, $3::timestamptz FROM generate_series(1, $4::int) AS i
     UNION ALL SELECT $5::uuid, 'sandbox', 'alone', $2, $3::timestamptz, $3::timestamptz, 2, $3::timestamptz`,
    [flooding.partner_id, NOVEL, dueEarlier, BACKLOG, other.partner_id],
  );
  await db.query('ANALYZE chapter_unlock_schedule');

  // What each of the job's batches claims (the first three are enough to judge the order).
  const schedule = t.app.get(UnlockScheduleRepository);
  const claim = schedule.claimDue.bind(schedule);
  const batches: ScheduledUnlock[][] = [];
  const spy = jest.spyOn(schedule, 'claimDue').mockImplementation(async (...args) => {
    if (batches.length === 3) return [];
    const rows = await claim(...args);
    batches.push(rows);
    return rows;
  });
  try {
    await t.app.get(ChapterUnlockJob).runOnce(now);
  } finally {
    spy.mockRestore();
  }

  const who = (batch: ScheduledUnlock[]) => batch.map((row) => `${row.tenant.environment}:${row.subscriberId}`);
  expect(who(batches[0])).toEqual(['live:live-reader']);
  // Two sandbox partners due: each takes half of the 200-row batch, the lone row included.
  expect(batches[1].filter((row) => row.tenant.partnerId === other.partner_id).map((row) => row.subscriberId)).toEqual(['alone']);
  expect(batches[1].filter((row) => row.tenant.partnerId === flooding.partner_id)).toHaveLength(100);
  expect(batches[2].every((row) => row.tenant.partnerId === flooding.partner_id)).toBe(true);
  expect(batches[2]).toHaveLength(200);

  const events = await t.inject({ method: 'GET', url: '/platform/v1/events?limit=10', headers: bearer(live.token) });
  expect(events.json().data.map((e: { event: string; data: { chapter_number: number } }) => [e.event, e.data.chapter_number])).toEqual([
    ['chapter.unlocked', 2],
  ]);
});
