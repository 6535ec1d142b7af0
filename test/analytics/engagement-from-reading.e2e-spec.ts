import { DataSource } from 'typeorm';
import { importCatalog, manifest, manifestNovel } from '../fixtures/catalog-fixture.js';
import { partnerClient, type PartnerClient } from '../fixtures/partner-client.js';
import { useTestApp } from '../support/test-app.js';

/**
 * The report over what the reading and playback endpoints themselves record: chapter-text
 * reads and playback-position writes (DECISIONS 14), and endings chosen through the API.
 */
const t = useTestApp();
let reader: PartnerClient;

beforeAll(async () => {
  await importCatalog(t, manifest([manifestNovel('report-novel', { chapters: 3 })]));
  reader = await partnerClient(t);
});

const DAY_MS = 86_400_000;
const isoDay = (instant: number) => new Date(instant).toISOString().slice(0, 10);

/** Opens report-novel for `subscriber`, started ten days ago so that every chapter is released. */
async function opened(subscriber: string, product: 'textapp' | 'audioapp') {
  await reader.entitle(subscriber, { product });
  expect((await reader.call('POST', `/subscribers/${subscriber}/novels`, { novel_id: 'report-novel' })).statusCode).toBe(201);
  await t.app
    .get(DataSource)
    .query(`UPDATE novel_progress SET started_at = $3 WHERE partner_id = $1 AND subscriber_id = $2`, [
      reader.partnerId,
      subscriber,
      new Date(Date.now() - 10 * DAY_MS),
    ]);
}

it('counts the readers, chapters and endings the reading endpoints record', async () => {
  await opened('text-reader', 'textapp');
  await opened('listener', 'audioapp');
  for (const chapter of [1, 1, 2]) {
    expect((await reader.call('GET', `/novels/report-novel/chapters/${chapter}/content?subscriber_id=text-reader`)).statusCode).toBe(200);
  }
  const position = { novel_id: 'report-novel', chapter_id: 'report-novel-ch1', position_seconds: 42 };
  expect((await reader.call('PUT', '/subscribers/listener/playback-position', position)).statusCode).toBe(200);
  expect((await reader.call('POST', '/novels/report-novel/choices', { subscriber_id: 'text-reader', choice_id: 'stay' })).statusCode).toBe(200);

  const response = await reader.call('GET', `/analytics/engagement?period_start=${isoDay(Date.now() - 11 * DAY_MS)}&period_end=${isoDay(Date.now())}`);
  expect(response.statusCode).toBe(200);
  expect(response.json()).toMatchObject({
    active_readers: 2,
    avg_chapters_read_per_active_reader: 1.5, // text-reader: chapters 1 and 2; listener: chapter 1
    completion_rate: 0.5, // both started in the period, one finished
    ending_distribution: [], // one reader: under the cohort minimum
  });
});
