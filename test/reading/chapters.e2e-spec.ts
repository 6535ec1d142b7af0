import { DataSource } from 'typeorm';
import { releaseDay, releaseInstantOfDay } from '../../src/modules/drip/index.js';
import { importCatalog, manifest, manifestNovel } from '../fixtures/catalog-fixture.js';
import { partnerClient, type PartnerClient } from '../fixtures/partner-client.js';
import { CATALOG_TABLES, statementsDuring } from '../fixtures/query-counter.js';
import { useTestApp } from '../support/test-app.js';

const t = useTestApp();
let db: DataSource;
let a: PartnerClient;

beforeAll(async () => {
  db = t.app.get(DataSource);
  await importCatalog(t, manifest([manifestNovel('drip-novel', { chapters: 5 })]));
  a = await partnerClient(t);
});

/** 06:00 São Paulo of the release day `offset` days from today's. */
const sixAm = (offset: number) => releaseInstantOfDay(releaseDay(new Date()) + offset);

async function reader(id: string, options: { plan?: string; startedAt?: Date } = {}) {
  await a.entitle(id, { plan: options.plan });
  expect((await a.call('POST', `/subscribers/${id}/novels`, { novel_id: 'drip-novel' })).statusCode).toBe(201);
  if (options.startedAt) {
    await db.query(`UPDATE novel_progress SET started_at = $3 WHERE partner_id = $1 AND subscriber_id = $2`, [a.partnerId, id, options.startedAt]);
  }
}

const listing = (query = '') => a.call('GET', `/novels/drip-novel/chapters${query}`);
const content = (subscriber: string, chapter: number | string, client = a) =>
  client.call('GET', `/novels/drip-novel/chapters/${chapter}/content?subscriber_id=${subscriber}`);
const currentChapter = async (subscriber: string) => (await a.call('GET', `/subscriber/${subscriber}/reading-progress`)).json().novels[0].current_chapter;

function expectError(response: Awaited<ReturnType<PartnerClient['call']>>, status: number, error: string) {
  expect({ status: response.statusCode, body: response.json() }).toEqual({ status, body: { error, error_description: expect.any(String) } });
}

describe('GET /novels/{id}/chapters', () => {
  it('lists editorial metadata only without subscriber_id', async () => {
    const response = await listing();
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      novel_id: 'drip-novel',
      total_chapters: 5,
      chapters: [1, 2, 3, 4, 5].map((n) => ({ chapter_number: n, title: `Chapter ${n} of drip-novel`, duration_seconds: 299 + n })),
    });
  });

  it('marks every chapter not_started, without unlocks_at, for a subscriber who has not opened the novel', async () => {
    const chapters = (await listing('?subscriber_id=stranger')).json().chapters;
    expect(chapters.map((c: object) => Object.keys(c).sort())).toEqual(Array(5).fill(['chapter_number', 'duration_seconds', 'status', 'title']));
    expect(chapters.every((c: { status: string }) => c.status === 'not_started')).toBe(true);
  });

  it('releases one chapter a day at 06:00 São Paulo: unlocked, then locked with unlocks_at', async () => {
    await reader('daily', { startedAt: sixAm(0) });
    const { chapters } = (await listing('?subscriber_id=daily')).json();
    expect(chapters[0]).toEqual({ chapter_number: 1, title: 'Chapter 1 of drip-novel', duration_seconds: 300, status: 'unlocked' });
    expect(chapters.slice(1).map((c: { status: string; unlocks_at: string }) => [c.status, c.unlocks_at])).toEqual(
      [1, 2, 3, 4].map((day) => ['locked', sixAm(day).toISOString()]),
    );
  });

  it('releases each chapter 24 hours earlier with early access', async () => {
    await reader('early', { plan: 'text_early', startedAt: sixAm(0) });
    const { chapters } = (await listing('?subscriber_id=early')).json();
    expect(chapters.map((c: { status: string }) => c.status)).toEqual(['unlocked', 'unlocked', 'locked', 'locked', 'locked']);
    expect(chapters[2].unlocks_at).toBe(new Date(sixAm(2).getTime() - 86_400_000).toISOString());
  });

  it('reads a listing with a subscriber in one statement, the novel and its chapters coming from memory', async () => {
    const statements = await statementsDuring(t, () => listing('?subscriber_id=daily'));
    // The subscriber's progress and features, together.
    expect(statements).toHaveLength(1);
    expect(statements.filter((sql) => CATALOG_TABLES.test(sql))).toEqual([]);
  });

  it('answers 404 invalid_request for an unknown novel and 400 for a malformed subscriber_id or an unknown parameter', async () => {
    expectError(await a.call('GET', '/novels/no-such-novel/chapters'), 404, 'invalid_request');
    expectError(await listing('?subscriber_id=bad%20id'), 400, 'invalid_request');
    expectError(await listing('?subscriber=x'), 400, 'invalid_request');
  });
});

describe('GET /novels/{id}/chapters/{n}/content', () => {
  it('answers a released chapter as markdown and records the reading', async () => {
    await reader('text-reader');
    const response = await content('text-reader', 1);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      novel_id: 'drip-novel',
      chapter_number: 1,
      title: 'Chapter 1 of drip-novel',
      format: 'markdown',
      body: '# Chapter 1\n\nText of chapter 1 of *drip-novel*.',
    });
    const activity = await db.query(`SELECT novel_id, chapter_number, kind FROM reading_activity WHERE partner_id = $1 AND subscriber_id = 'text-reader'`, [
      a.partnerId,
    ]);
    expect(activity).toEqual([{ novel_id: 'drip-novel', chapter_number: 1, kind: 'text' }]);
  });

  it('moves current_chapter forward, never backwards', async () => {
    await reader('advancer', { startedAt: new Date(Date.now() - 10 * 86_400_000) });
    expect((await content('advancer', 3)).statusCode).toBe(200);
    expect(await currentChapter('advancer')).toBe(3);
    expect((await content('advancer', 2)).statusCode).toBe(200);
    expect(await currentChapter('advancer')).toBe(3);
  });

  it('refuses a chapter the drip has not released with 403 chapter_locked, saying when it will be', async () => {
    await reader('impatient', { startedAt: sixAm(0) });
    const response = await content('impatient', 2);
    expectError(response, 403, 'chapter_locked');
    expect(response.json().error_description).toContain(sixAm(1).toISOString());
    await a.entitle('never-opened');
    expectError(await content('never-opened', 1), 403, 'chapter_locked');
  });

  it('refuses a subscriber without an active reading entitlement with 403 subscriber_not_entitled', async () => {
    await reader('lapsed', { startedAt: new Date(Date.now() - 10 * 86_400_000) });
    await a.entitle('lapsed', { status: 'canceled' });
    expectError(await content('lapsed', 1), 403, 'subscriber_not_entitled');
  });

  it('answers 404 not_found beyond the last chapter, 400 for a malformed chapter number or subscriber_id', async () => {
    await reader('edge');
    expectError(await content('edge', 6), 404, 'not_found');
    for (const bad of ['0', 'abc', '1.5', '-1']) expectError(await content('edge', bad), 400, 'invalid_request');
    expectError(await a.call('GET', '/novels/drip-novel/chapters/1/content'), 400, 'invalid_request');
  });

  it('needs textapp:content:read', async () => {
    const narrow = await partnerClient(t, { scopes: ['textapp:catalog:read'] });
    expectError(await content('edge', 1, narrow), 403, 'insufficient_scope');
  });
});
