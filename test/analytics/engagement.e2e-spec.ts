import { DataSource } from 'typeorm';
import type { IssuedCredential } from '../../src/modules/identity/index.js';
import { importCatalog, manifest, manifestNovel } from '../fixtures/catalog-fixture.js';
import { bearer, useTestApp } from '../support/test-app.js';

/**
 * GET /v1/analytics/engagement (contract 2 and 4.1, DECISIONS 14) over rows seeded with
 * SQL, as the reading module would have written them. Subscriber ids are distinctive so
 * that a scan of the answer finds any of them.
 */
const t = useTestApp();
let db: DataSource;

beforeAll(async () => {
  db = t.app.get(DataSource);
  for (const environment of ['live', 'sandbox']) {
    await db.query(`INSERT INTO categories (environment, id, name, sort_order) VALUES ($1, 'analytics-fixture', 'Drama', 1)`, [environment]);
    await db.query(
      `INSERT INTO novels (environment, id, title, category_id, language, status, total_chapters)
       VALUES ($1, 'analytics-heir', 'The Heir', 'analytics-fixture', 'pt-BR', 'published', 10), ($1, 'analytics-pact', 'The Pact', 'analytics-fixture', 'pt-BR', 'published', 10)`,
      [environment],
    );
    await db.query(
      `INSERT INTO endings (environment, novel_id, choice_id, label, ending, sort_order) VALUES
         ($1, 'analytics-heir', 'stay', 'Stay at the manor', '…', 2), ($1, 'analytics-heir', 'leave', 'Leave at dawn', '…', 1),
         ($1, 'analytics-pact', 'keep', 'Keep the pact', '…', 1), ($1, 'analytics-pact', 'break', 'Break the pact', '…', 2)`,
      [environment],
    );
  }
});

type Environment = 'live' | 'sandbox';

async function activity(
  partner: IssuedCredential,
  rows: [subscriber: string, novel: string, chapter: number, at: string][],
  environment: Environment = 'live',
) {
  for (const [subscriber, novel, chapter, at] of rows) {
    await db.query(
      `INSERT INTO reading_activity (partner_id, environment, subscriber_id, novel_id, chapter_number, kind, occurred_at) VALUES ($1, $2, $3, $4, $5, 'text', $6)`,
      [partner.partner_id, environment, subscriber, novel, chapter, at],
    );
  }
}

async function progress(
  partner: IssuedCredential,
  rows: [subscriber: string, novel: string, startedAt: string, finishedAt: string | null, choice: string | null][],
  environment: Environment = 'live',
) {
  for (const [subscriber, novel, startedAt, finishedAt, choice] of rows) {
    await db.query(
      `INSERT INTO novel_progress (partner_id, environment, subscriber_id, novel_id, started_at, current_chapter, finished_at, chosen_choice_id)
       VALUES ($1, $2, $3, $4, $5, 10, $6, $7)`,
      [partner.partner_id, environment, subscriber, novel, startedAt, finishedAt, choice],
    );
  }
}

/** `count` subscribers who chose `choice` of `novel` inside October 2026. */
async function choosers(partner: IssuedCredential, novel: string, choice: string, count: number) {
  await db.query(
    `INSERT INTO novel_progress (partner_id, environment, subscriber_id, novel_id, started_at, current_chapter, finished_at, chosen_choice_id)
     SELECT $1, 'live', 'chooser-' || $3 || '-' || n, $2, '2026-09-01T12:00:00Z', 10, '2026-10-15T12:00:00Z', $3 FROM generate_series(1, $4) AS n`,
    [partner.partner_id, novel, choice, count],
  );
}

async function report(token: string, query = 'period_start=2026-10-01&period_end=2026-10-31', mount = '/v1') {
  return t.inject({ method: 'GET', url: `${mount}/analytics/engagement${query ? `?${query}` : ''}`, headers: bearer(token) });
}

/** Every string anywhere in a JSON value, keys included. */
const stringsIn = (value: unknown): string[] =>
  typeof value === 'string' ? [value] : value && typeof value === 'object' ? Object.entries(value).flatMap(([key, inner]) => [key, ...stringsIn(inner)]) : [];

describe('GET /v1/analytics/engagement', () => {
  let partner: IssuedCredential;
  let token: string;
  const subscribers = ['reader-ana-7f3a', 'reader-bia-7f3a', 'reader-caio-7f3a', 'reader-davi-7f3a'];
  const [ana, bia, caio, davi] = subscribers;

  beforeAll(async () => {
    partner = await t.partner({ scopes: ['textapp:analytics:read'] });
    token = await t.token(partner);
    await activity(partner, [
      // ana: heir 1 twice on one day, heir 2, then heir 1 again later: 2 distinct chapters.
      [ana, 'analytics-heir', 1, '2026-10-02T10:00:00Z'],
      [ana, 'analytics-heir', 1, '2026-10-02T10:05:00Z'],
      [ana, 'analytics-heir', 2, '2026-10-03T10:00:00Z'],
      [ana, 'analytics-heir', 1, '2026-10-20T10:00:00Z'],
      // bia: both edges of the period are inside, the instants just outside are not: 2 chapters.
      [bia, 'analytics-heir', 1, '2026-09-30T23:59:59Z'],
      [bia, 'analytics-heir', 1, '2026-10-01T00:00:00Z'],
      [bia, 'analytics-pact', 1, '2026-10-31T23:59:59Z'],
      [bia, 'analytics-pact', 2, '2026-11-01T00:00:00Z'],
      // caio read in September only: not an active reader.
      [caio, 'analytics-pact', 1, '2026-09-15T10:00:00Z'],
      // davi: 1 chapter.
      [davi, 'analytics-pact', 3, '2026-10-15T10:00:00Z'],
    ]);
    await progress(partner, [
      // Started in October: ana (finished in October), bia (unfinished), davi (finished in November).
      [ana, 'analytics-heir', '2026-10-02T09:00:00Z', '2026-10-25T10:00:00Z', 'stay'],
      [bia, 'analytics-heir', '2026-10-01T00:00:00Z', null, null],
      [davi, 'analytics-pact', '2026-10-15T09:00:00Z', '2026-11-02T10:00:00Z', 'keep'],
      // Started in September, finished in October: an ending of the period, not a start.
      [caio, 'analytics-pact', '2026-09-10T09:00:00Z', '2026-10-05T10:00:00Z', 'break'],
    ]);
  });

  it('computes every figure of DECISIONS 14 on a hand-computed fixture', async () => {
    const response = await report(token);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      period_start: '2026-10-01',
      period_end: '2026-10-31',
      active_readers: 3, // ana, bia, davi
      avg_chapters_read_per_active_reader: 1.67, // (2 + 2 + 1) / 3
      completion_rate: 0.6667, // ana and davi of ana, bia and davi
      ending_distribution: [], // 1 reader per ending: all under 20
      minimum_cohort_size: 20,
      generated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
  });

  it('counts a single day on its own', async () => {
    const response = await report(token, 'period_start=2026-10-02&period_end=2026-10-02');
    expect(response.json()).toMatchObject({ active_readers: 1, avg_chapters_read_per_active_reader: 1, completion_rate: 1 });
  });

  it('names no subscriber anywhere in the answer', async () => {
    const strings = stringsIn((await report(token)).json());
    for (const subscriber of subscribers) expect(strings.filter((s) => s.includes(subscriber))).toEqual([]);
    expect(strings).not.toContain('subscriber_id');
  });

  it("shows a partner nothing of another partner's readers, nor of its own sandbox", async () => {
    const other = await t.partner({ scopes: ['textapp:analytics:read'] });
    await activity(other, [
      [ana, 'analytics-heir', 5, '2026-10-10T10:00:00Z'],
      ['reader-other-7f3a', 'analytics-heir', 1, '2026-10-10T10:00:00Z'],
    ]);
    await choosers(other, 'analytics-pact', 'keep', 25);
    await activity(partner, [['reader-sandbox-7f3a', 'analytics-heir', 1, '2026-10-10T10:00:00Z']], 'sandbox');
    expect((await report(token)).json()).toMatchObject({ active_readers: 3, avg_chapters_read_per_active_reader: 1.67, ending_distribution: [] });
    expect((await report(await t.token(other))).json()).toMatchObject({
      active_readers: 2,
      avg_chapters_read_per_active_reader: 1,
      completion_rate: 0, // started in September
      ending_distribution: [{ novel_id: 'analytics-pact', choice_id: 'keep', label: 'Keep the pact', count: 25 }],
    });
  });

  it('serves sandbox credentials their sandbox data on /sandbox/v1', async () => {
    const sandbox = await t.partner({ scopes: ['textapp:analytics:read'], environment: 'sandbox' });
    await activity(sandbox, [['reader-sbx-7f3a', 'analytics-heir', 1, '2026-10-10T10:00:00Z']], 'sandbox');
    const response = await report(await t.token(sandbox), 'period_start=2026-10-01&period_end=2026-10-31', '/sandbox/v1');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ active_readers: 1 });
    expect((await report(token, 'period_start=2026-10-01&period_end=2026-10-31', '/sandbox/v1')).statusCode).toBe(401);
  });
});

describe('ending distribution', () => {
  it('omits an ending chosen by 19 readers, keeps one chosen by 20, with labels in catalog order', async () => {
    const partner = await t.partner({ scopes: ['textapp:analytics:read'] });
    await choosers(partner, 'analytics-heir', 'stay', 20);
    await choosers(partner, 'analytics-heir', 'leave', 31);
    await choosers(partner, 'analytics-pact', 'keep', 19);
    // Finished just outside the period: not endings of October.
    await progress(partner, [
      ['late-1', 'analytics-pact', '2026-09-01T00:00:00Z', '2026-11-01T00:00:00Z', 'break'],
      ['early-1', 'analytics-pact', '2026-09-01T00:00:00Z', '2026-09-30T23:59:59Z', 'break'],
    ]);
    const response = await report(await t.token(partner));
    expect(response.json().ending_distribution).toEqual([
      { novel_id: 'analytics-heir', choice_id: 'leave', label: 'Leave at dawn', count: 31 },
      { novel_id: 'analytics-heir', choice_id: 'stay', label: 'Stay at the manor', count: 20 },
    ]);
    const strings = stringsIn(response.json());
    expect(strings.filter((s) => s.includes('chooser-'))).toEqual([]);
  });

  it('still counts an ending since dropped from the catalog, labelled by its choice id', async () => {
    const partner = await t.partner({ scopes: ['textapp:analytics:read'] });
    await choosers(partner, 'analytics-heir', 'dropped-ending', 20);
    expect((await report(await t.token(partner))).json().ending_distribution).toEqual([
      { novel_id: 'analytics-heir', choice_id: 'dropped-ending', label: 'dropped-ending', count: 20 },
    ]);
  });
});

describe('ending labels, from the catalog in memory', () => {
  const row = (choice: string, label: string, count: number) => ({ novel_id: 'labels-heir', choice_id: choice, label, count });

  it("keep a novel's labels when an import removes it after the catalog was read, and place dropped endings last", async () => {
    const partner = await t.partner({ scopes: ['textapp:analytics:read'] });
    const token = await t.token(partner);
    // Sort orders 1, 2, 3: not the ids' order.
    await importCatalog(t, manifest([manifestNovel('labels-heir', { endings: ['stay', 'leave', 'wait'] })]));
    await choosers(partner, 'labels-heir', 'wait', 20);
    await choosers(partner, 'labels-heir', 'leave', 21);
    await choosers(partner, 'labels-heir', 'stay', 22);
    await choosers(partner, 'labels-heir', 'gone', 23);
    expect((await report(token)).json().ending_distribution).toEqual([
      row('stay', 'Label stay', 22),
      row('leave', 'Label leave', 21),
      row('wait', 'Label wait', 20),
      row('gone', 'gone', 23),
    ]);

    // Removed, with 'stay' dropped, 'wait' relabelled, and 'wait' and 'leave' tied.
    const removed = manifestNovel('labels-heir', { status: 'removed', endings: ['wait', 'leave'] });
    removed.endings[0].label = 'Wait for spring';
    removed.endings[1].sort_order = 1;
    await importCatalog(t, manifest([removed]));
    expect((await report(token)).json().ending_distribution).toEqual([
      row('leave', 'Label leave', 21),
      row('wait', 'Wait for spring', 20),
      row('gone', 'gone', 23),
      row('stay', 'stay', 22),
    ]);
  });
});

describe('period and access', () => {
  let token: string;
  beforeAll(async () => {
    token = await t.token(await t.partner({ scopes: ['textapp:analytics:read'] }));
  });

  const expectInvalidRequest = async (query: string, description: RegExp) => {
    const response = await report(token, query);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(description) });
  };

  it('accepts 366 days counting both ends and refuses 367', async () => {
    expect((await report(token, 'period_start=2024-01-01&period_end=2024-12-31')).statusCode).toBe(200);
    await expectInvalidRequest('period_start=2024-01-01&period_end=2025-01-01', /at most 366/);
  });

  it('refuses an end before the start, a date that does not exist and an unknown parameter', async () => {
    await expectInvalidRequest('period_start=2026-10-02&period_end=2026-10-01', /period_end must not be before period_start/);
    await expectInvalidRequest('period_start=2026-02-30&period_end=2026-03-01', /period_start must be a calendar date/);
    await expectInvalidRequest('period_start=2026-10-01&period_start=2026-10-02&period_end=2026-10-31', /period_start must be given once/);
    await expectInvalidRequest('period_start=2026-10-01&period_end=2026-10-31&subscriber_id=reader-ana-7f3a', /subscriber_id/);
  });

  it('defaults to the current UTC month to today', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const response = await report(token, '');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ period_start: `${today.slice(0, 7)}-01`, period_end: today });
  });

  it('needs textapp:analytics:read', async () => {
    const response = await report(await t.token(await t.partner({ scopes: ['textapp:catalog:read'] })));
    expect(response.statusCode).toBe(403);
    expect(response.json().error).toBe('insufficient_scope');
  });
});
