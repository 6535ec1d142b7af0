import { DataSource } from 'typeorm';
import { releaseDay, releaseInstantOfDay } from '../../src/modules/drip/index.js';
import { importCatalog, manifest, manifestNovel } from '../fixtures/catalog-fixture.js';
import { CATALOG_TABLES, statementsDuring } from '../fixtures/query-counter.js';
import { partnerClient, type PartnerClient } from '../fixtures/partner-client.js';
import { useTestApp } from '../support/test-app.js';

const t = useTestApp();
let db: DataSource;
let a: PartnerClient;

/** The start of today's release day (06:00 São Paulo): only chapter 1 is released, or 2 with early access. */
const today = () => releaseInstantOfDay(releaseDay(new Date()));
const TEN_DAYS_AGO = () => new Date(Date.now() - 10 * 86_400_000);

beforeAll(async () => {
  db = t.app.get(DataSource);
  await importCatalog(t, manifest([manifestNovel('listen-novel', { chapters: 4 }), manifestNovel('other-novel', { chapters: 2 })]));
  a = await partnerClient(t);
});

/** An audioapp subscriber who opened listen-novel at `startedAt`. */
async function listener(id: string, startedAt: Date, plan = 'audio_standard', client = a) {
  await client.entitle(id, { product: 'audioapp', plan });
  expect((await client.call('POST', `/subscribers/${id}/novels`, { novel_id: 'listen-novel' })).statusCode).toBe(201);
  await db.query(`UPDATE novel_progress SET started_at = $3 WHERE partner_id = $1 AND subscriber_id = $2`, [client.partnerId, id, startedAt]);
}

const put = (subscriber: string, body: object, client = a, path = 'subscribers') => client.call('PUT', `/${path}/${subscriber}/playback-position`, body);
const get = (subscriber: string, novelId = 'listen-novel', client = a, path = 'subscribers') =>
  client.call('GET', `/${path}/${subscriber}/playback-position?novel_id=${novelId}`);
const position = (chapter: number, seconds: number) => ({ novel_id: 'listen-novel', chapter_id: `listen-novel-ch${chapter}`, position_seconds: seconds });

function expectError(response: Awaited<ReturnType<PartnerClient['call']>>, status: number, error: string) {
  expect({ status: response.statusCode, body: response.json() }).toEqual({ status, body: { error, error_description: expect.any(String) } });
}

describe('PUT and GET /subscribers/{id}/playback-position', () => {
  it('stores the position and answers it, with every contract field', async () => {
    await listener('p-1', TEN_DAYS_AGO());
    const written = await put('p-1', position(2, 95));
    expect(written.statusCode).toBe(200);
    expect(written.json()).toEqual({
      subscriber_id: 'p-1',
      novel_id: 'listen-novel',
      chapter_id: 'listen-novel-ch2',
      position_seconds: 95,
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const read = await get('p-1');
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual(written.json());
  });

  it('replaces the one record on each write, on the declared path and the singular alias alike', async () => {
    await listener('p-2', TEN_DAYS_AGO());
    await put('p-2', position(1, 10));
    const replaced = await put('p-2', position(3, 0), a, 'subscriber');
    expect(replaced.statusCode).toBe(200);
    expect((await get('p-2', 'listen-novel', a, 'subscriber')).json()).toEqual(replaced.json());
    const rows = await db.query(`SELECT chapter_number, position_seconds FROM playback_positions WHERE partner_id = $1 AND subscriber_id = 'p-2'`, [
      a.partnerId,
    ]);
    expect(rows).toEqual([{ chapter_number: 3, position_seconds: 0 }]);
  });

  it('records listening activity once per chapter and UTC day, and moves current_chapter forward, never backwards', async () => {
    await listener('p-3', TEN_DAYS_AGO());
    await put('p-3', position(3, 5));
    await put('p-3', position(2, 5));
    // Later saves of a chapter already recorded today store the position and add no row.
    await put('p-3', position(2, 15));
    await put('p-3', position(3, 25));
    const activity = await db.query(`SELECT chapter_number, kind FROM reading_activity WHERE partner_id = $1 AND subscriber_id = 'p-3' ORDER BY occurred_at`, [
      a.partnerId,
    ]);
    expect(activity).toEqual([
      { chapter_number: 3, kind: 'audio' },
      { chapter_number: 2, kind: 'audio' },
    ]);
    expect((await get('p-3')).json()).toMatchObject({ chapter_id: 'listen-novel-ch3', position_seconds: 25 });
    const progress = (await a.call('GET', '/subscriber/p-3/reading-progress')).json();
    expect(progress.novels[0].current_chapter).toBe(3);
  });

  it('records the listening of a chapter again on a new UTC day', async () => {
    await listener('p-days', TEN_DAYS_AGO());
    await put('p-days', position(2, 5));
    // As if the first save had been yesterday: its day's rollup row is all that says it was recorded.
    await db.query(`UPDATE reading_chapter_days SET day = day - 1 WHERE partner_id = $1 AND subscriber_id = 'p-days'`, [a.partnerId]);
    await put('p-days', position(2, 15));
    const [{ count }] = await db.query(`SELECT count(*)::int AS count FROM reading_activity WHERE partner_id = $1 AND subscriber_id = 'p-days'`, [a.partnerId]);
    expect(count).toBe(2);
  });

  it('leaves one row holding one of the written values after 20 parallel writes, and GET returns it', async () => {
    await listener('p-race', TEN_DAYS_AGO());
    const writes = Array.from({ length: 20 }, (_, i) => position((i % 4) + 1, i * 10));
    const responses = await Promise.all(writes.map((body) => put('p-race', body)));
    expect(responses.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
    const rows = await db.query(`SELECT chapter_number, position_seconds FROM playback_positions WHERE partner_id = $1 AND subscriber_id = 'p-race'`, [
      a.partnerId,
    ]);
    expect(rows).toHaveLength(1);
    const stored = { novel_id: 'listen-novel', chapter_id: `listen-novel-ch${rows[0].chapter_number}`, position_seconds: rows[0].position_seconds };
    expect(writes).toContainEqual(stored);
    expect((await get('p-race')).json()).toMatchObject(stored);
  });

  it('refuses a chapter the drip has not released with 400 invalid_request saying so', async () => {
    await listener('p-4', today());
    expect((await put('p-4', position(1, 1))).statusCode).toBe(200);
    const locked = await put('p-4', position(2, 1));
    expectError(locked, 400, 'invalid_request');
    expect(locked.json().error_description).toMatch(/not yet released/);
    await a.entitle('p-unopened', { product: 'audioapp' });
    const unopened = await put('p-unopened', { novel_id: 'other-novel', chapter_id: 'other-novel-ch1', position_seconds: 1 });
    expectError(unopened, 400, 'invalid_request');
    expect(unopened.json().error_description).toMatch(/not yet released/);
  });

  it('writes nothing when it refuses: no position, no activity row, current_chapter unmoved', async () => {
    await listener('p-nothing', today());
    expect((await put('p-nothing', position(1, 7))).statusCode).toBe(200);
    expectError(await put('p-nothing', position(3, 9)), 400, 'invalid_request');
    expect((await get('p-nothing')).json()).toMatchObject({ chapter_id: 'listen-novel-ch1', position_seconds: 7 });
    const [row] = await db.query(
      `SELECT p.current_chapter, (SELECT count(*)::int FROM reading_activity a WHERE a.partner_id = p.partner_id AND a.subscriber_id = p.subscriber_id) AS activities
         FROM novel_progress p WHERE p.partner_id = $1 AND p.subscriber_id = $2`,
      [a.partnerId, 'p-nothing'],
    );
    expect(row).toEqual({ current_chapter: 1, activities: 1 });
  });

  it('releases one chapter ahead with early access, and every chapter of a finished novel', async () => {
    await listener('p-ahead', today(), 'audio_early');
    expect((await put('p-ahead', position(2, 1))).statusCode).toBe(200);
    const beyond = await put('p-ahead', position(3, 1));
    expectError(beyond, 400, 'invalid_request');
    expect(beyond.json().error_description).toMatch(/not yet released.*expected at/);
    await db.query(`UPDATE novel_progress SET finished_at = now(), chosen_choice_id = 'any' WHERE partner_id = $1 AND subscriber_id = $2`, [
      a.partnerId,
      'p-ahead',
    ]);
    expect((await put('p-ahead', position(4, 1))).json()).toMatchObject({ chapter_id: 'listen-novel-ch4' });
  });

  it('answers 400 on GET when the stored chapter is no longer released (the plan lost early access)', async () => {
    await listener('p-early', today(), 'audio_early');
    expect((await put('p-early', position(2, 30))).statusCode).toBe(200);
    await a.entitle('p-early', { product: 'audioapp', plan: 'audio_standard' });
    const response = await get('p-early');
    expectError(response, 400, 'invalid_request');
    expect(response.json().error_description).toMatch(/not yet released/);
  });

  it.each([
    [{ chapter_id: 'listen-novel-ch1', position_seconds: 1 }, 'novel_id'],
    [{ novel_id: 'listen-novel', position_seconds: 1 }, 'chapter_id'],
    [{ novel_id: 'listen-novel', chapter_id: 'listen-novel-ch1' }, 'position_seconds'],
    [position(1, -1), 'position_seconds'],
    [position(1, 86_401), 'position_seconds'],
    [position(1, 1.5), 'position_seconds'],
    [{ ...position(1, 1), position_seconds: '5' }, 'position_seconds'],
    [{ ...position(1, 1), chapter_id: 'other-novel-ch1' }, 'chapter_id'],
    [{ ...position(1, 1), chapter_id: 'listen-novel-1' }, 'chapter_id'],
    [{ ...position(1, 1), chapter_id: 'listen-novel-ch0' }, 'chapter_id'],
    [position(5, 1), 'chapter_id'],
    [{ ...position(1, 1), extra: true }, 'extra'],
  ])('answers 400 invalid_request for %j, naming %s', async (body, field) => {
    await a.entitle('p-bad', { product: 'audioapp' });
    const response = await put('p-bad', body);
    expectError(response, 400, 'invalid_request');
    expect(response.json().error_description).toContain(field);
  });

  it('reads a position in one statement and writes one in one, without a transaction of its own; the first save of a chapter on a day in two', async () => {
    await listener('p-sql', TEN_DAYS_AGO());
    const first = await statementsDuring(t, () => put('p-sql', position(2, 30)), { keepTransactions: true });
    // The usual save's statement finds the listening not yet recorded today and writes
    // nothing; one statement then reads the progress and the plan again, tests the drip
    // and writes the upsert, the activity row and current_chapter.
    expect(first).toHaveLength(2);
    expect(first[0]).not.toMatch(/reading_activity/);
    expect(first[1]).toMatch(/INSERT INTO playback_positions[\s\S]*INSERT INTO reading_activity[\s\S]*UPDATE novel_progress/);
    // The usual save: one statement, which names no table with a trigger or partitions.
    const written = await statementsDuring(t, () => put('p-sql', position(2, 40)), { keepTransactions: true });
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(/INSERT INTO playback_positions[\s\S]*UPDATE novel_progress/);
    expect(written[0]).not.toMatch(/reading_activity/);
    // The novel comes from memory.
    expect([...first, ...written].filter((sql) => CATALOG_TABLES.test(sql))).toEqual([]);
    // The position beside the progress and features that say whether its chapter is still released.
    const read = await statementsDuring(t, () => get('p-sql'));
    expect(read).toHaveLength(1);
    expect(read.filter((sql) => CATALOG_TABLES.test(sql))).toEqual([]);
  });

  it('accepts the bounds 0 and 86400', async () => {
    await listener('p-bounds', TEN_DAYS_AGO());
    expect((await put('p-bounds', position(1, 0))).statusCode).toBe(200);
    expect((await put('p-bounds', position(1, 86_400))).json().position_seconds).toBe(86_400);
  });

  it('answers 404 not_found when no position is stored, 404 invalid_request for an unknown novel, 400 without novel_id', async () => {
    expectError(await get('p-none'), 404, 'not_found');
    expectError(await get('p-none', 'no-such-novel'), 404, 'invalid_request');
    expectError(await put('p-none', { novel_id: 'no-such-novel', chapter_id: 'no-such-novel-ch1', position_seconds: 1 }), 404, 'invalid_request');
    expectError(await a.call('GET', '/subscribers/p-none/playback-position'), 400, 'invalid_request');
  });

  it('needs audioapp:playback:read to read and audioapp:playback:write to write', async () => {
    const reader = await partnerClient(t, { scopes: ['audioapp:playback:read'] });
    const writer = await partnerClient(t, { scopes: ['audioapp:playback:write'] });
    expectError(await put('x', position(1, 1), reader), 403, 'insufficient_scope');
    expectError(await get('x', 'listen-novel', writer), 403, 'insufficient_scope');
    expectError(await get('x', 'listen-novel', reader), 404, 'not_found');
  });

  it("keeps partners' subscribers apart", async () => {
    await listener('p-shared', TEN_DAYS_AGO());
    await put('p-shared', position(2, 42));
    const b = await partnerClient(t);
    expectError(await get('p-shared', 'listen-novel', b), 404, 'not_found');
    await listener('p-shared', TEN_DAYS_AGO(), 'audio_standard', b);
    await put('p-shared', position(4, 7), b);
    expect((await get('p-shared')).json().position_seconds).toBe(42);
    expect((await get('p-shared', 'listen-novel', b)).json().position_seconds).toBe(7);
  });
});
