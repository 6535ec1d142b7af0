import { readFileSync } from 'node:fs';
import pg from 'pg';
import { COMMANDS } from '../../src/cli/commands.js';
import { KidsActivityImporter } from '../../src/modules/kids-engagement/index.js';
import { DEFAULT_SCOPES, PartnerCredentialsService, SCOPES } from '../../src/modules/identity/index.js';
import { SubscriberDataRegistry } from '../../src/shared/tenancy/subscriber-data.js';
import { OpenApiDocument } from '../contract/openapi-model.js';
import { DEMO_MP3, importCatalog, manifest, manifestNovel } from '../fixtures/catalog-fixture.js';
import { partnerClient, type PartnerClient } from '../fixtures/partner-client.js';
import { bearer, useTestApp } from '../support/test-app.js';

/**
 * DECISIONS 29: a subscriber's export and erasure, through the HTTP API, on data written
 * through the API and, for past periods, seeded in SQL as it would have been written then.
 * The delivery worker is off: deliveries stay pending until the erasure cancels them.
 */
const t = useTestApp({ WEBHOOK_WORKER: 'false', WEBHOOK_ALLOW_INSECURE_URLS: 'true', LOG_LEVEL: 'error' });

const NOVEL = 'erasure-novel';
const SUBSCRIBER = 'erase-me@example';
const OTHER = 'stays-put';
const DAY = 24 * 3600 * 1000;
/** The previous UTC month: ended, so its figures may not change. */
const now = new Date();
const previousMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
const inPreviousMonth = (day: number, hour = 12) => new Date(previousMonth.getTime() + (day - 1) * DAY + hour * 3600 * 1000);
const PERIOD = previousMonth.toISOString().slice(0, 7);
const lastDay = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 0)).toISOString().slice(0, 10);
const WINDOW = `period_start=${PERIOD}-01&period_end=${lastDay}`;

let db: pg.Client;
let a: PartnerClient;
let endpointId: string;

const platform = (client: PartnerClient, method: 'GET' | 'POST' | 'DELETE', path: string, payload?: object) =>
  t.inject({ method, url: `/platform/v1${path}`, headers: bearer(client.token), ...(payload && { payload }) });
const exportOf = async (client: PartnerClient, subscriberId = SUBSCRIBER) => {
  const response = await platform(client, 'GET', `/subscribers/${encodeURIComponent(subscriberId)}/export`);
  expect(response.statusCode).toBe(200);
  return response.json();
};
const erase = (client: PartnerClient, subscriberId = SUBSCRIBER) => platform(client, 'DELETE', `/subscribers/${encodeURIComponent(subscriberId)}`);

/** A reader's whole life through the API: entitlements, a novel read, listened to and finished, a stream URL. */
async function liveReader(client: PartnerClient, subscriberId: string): Promise<void> {
  await client.entitle(subscriberId, { product: 'textapp' });
  await client.entitle(subscriberId, { product: 'audioapp' });
  expect((await client.call('POST', `/subscribers/${encodeURIComponent(subscriberId)}/novels`, { novel_id: NOVEL })).statusCode).toBe(201);
  expect((await client.call('GET', `/novels/${NOVEL}/chapters/1/content?subscriber_id=${encodeURIComponent(subscriberId)}`)).statusCode).toBe(200);
  const position = await client.call('PUT', `/subscribers/${encodeURIComponent(subscriberId)}/playback-position`, {
    novel_id: NOVEL,
    chapter_id: `${NOVEL}-ch1`,
    position_seconds: 12,
  });
  expect(position.statusCode).toBe(200);
  expect((await client.call('GET', `/novels/${NOVEL}/chapters/1/stream?subscriber_id=${encodeURIComponent(subscriberId)}`)).statusCode).toBe(200);
  expect((await client.call('POST', `/novels/${NOVEL}/choices`, { subscriber_id: subscriberId, choice_id: 'stay' })).statusCode).toBe(200);
}

/** Last month's activity and entitlements, as the service would have written them then (its triggers count them). */
async function seedPreviousMonth(partnerId: string, subscriberId: string): Promise<void> {
  for (const [product, plan, day] of [
    ['kidsapp', 'kids_standard', 1],
    ['textapp', 'text_standard', 3],
  ] as const) {
    await db.query(
      `INSERT INTO entitlement_history (partner_id, environment, subscriber_id, product, old_status, new_status, internal_plan, changed_by, effective_at)
       VALUES ($1, 'live', $2, $3, NULL, 'active', $4, 'seed', $5)`,
      [partnerId, subscriberId, product, plan, inPreviousMonth(day)],
    );
  }
  await db.query(
    `INSERT INTO entitlements (partner_id, environment, subscriber_id, product, status, internal_plan, effective_at)
     VALUES ($1, 'live', $2, 'kidsapp', 'active', 'kids_standard', $3)`,
    [partnerId, subscriberId, inPreviousMonth(1)],
  );
  await db.query(
    `INSERT INTO reading_activity (partner_id, environment, subscriber_id, novel_id, chapter_number, kind, occurred_at)
     SELECT $1, 'live', $2, $3, 1, 'text', d FROM unnest($4::timestamptz[]) AS d`,
    [partnerId, subscriberId, NOVEL, [inPreviousMonth(4), inPreviousMonth(5), inPreviousMonth(9)]],
  );
  await t.app.get(KidsActivityImporter).import(partnerId, [
    JSON.stringify({
      account_id: subscriberId,
      child_ref: 'kid-1',
      story_id: 'story-1',
      minutes: 7.5,
      completed_at: inPreviousMonth(6, 13).toISOString(),
      occurred_at: inPreviousMonth(6).toISOString(),
    }),
  ]);
}

/** The reports of the previous month, and the children's day counts (whose summary needs 30 accounts). */
async function pastFigures(client: PartnerClient) {
  const billing: Record<string, unknown> = {};
  for (const product of ['textapp', 'kidsapp']) {
    const usage = await platform(client, 'GET', `/billing-usage?product=${product}&period=${PERIOD}`);
    expect(usage.statusCode).toBe(200);
    const { period_active_at_end, period_peak_active, period_average_daily_active, history_complete } = usage.json();
    billing[product] = { period_active_at_end, period_peak_active, period_average_daily_active, history_complete };
  }
  const engagement = await client.call('GET', `/analytics/engagement?${WINDOW}`);
  expect(engagement.statusCode).toBe(200);
  const kids = (
    await db.query(`SELECT measure, sum(count)::float8 AS total FROM kids_day_counts WHERE partner_id = $1 GROUP BY measure ORDER BY measure`, [
      client.partnerId,
    ])
  ).rows;
  const { generated_at: _generatedAt, ...report } = engagement.json();
  return { billing, engagement: report, kids };
}

/**
 * Every column that may hold a subscriber id, from the schema itself: by name (subscriber_id,
 * account_id) and every JSON document of a partner's table (event payloads carry them;
 * subscriber data is always a partner's, DECISIONS 2). Partitions are covered by their parent.
 */
async function subscriberColumns(): Promise<{ table: string; column: string; json: boolean; environment: boolean }[]> {
  const { rows } = await db.query<{ table: string; column: string; json: boolean; environment: boolean }>(
    `SELECT c.table_name AS table, c.column_name AS column, c.data_type IN ('json', 'jsonb') AS json,
            EXISTS (SELECT FROM information_schema.columns e WHERE e.table_schema = c.table_schema AND e.table_name = c.table_name AND e.column_name = 'environment') AS environment
       FROM information_schema.columns c
       JOIN pg_class k ON k.relname = c.table_name AND k.relnamespace = 'public'::regnamespace
      WHERE c.table_schema = 'public' AND NOT k.relispartition
        AND (c.column_name IN ('subscriber_id', 'account_id')
             OR c.data_type IN ('json', 'jsonb') AND EXISTS (
               SELECT FROM information_schema.columns p WHERE p.table_schema = c.table_schema AND p.table_name = c.table_name AND p.column_name = 'partner_id'))
      ORDER BY 1, 2`,
  );
  return rows;
}

/** The rows of every such column that hold `subscriberId` for the tenant, by `table.column`. */
async function rowsHolding(partnerId: string, environment: string, subscriberId: string): Promise<Record<string, number>> {
  const held: Record<string, number> = {};
  for (const { table, column, json, environment: hasEnvironment } of await subscriberColumns()) {
    const matches = json ? `${column}::text LIKE '%' || to_json($3::text)::text || '%'` : `${column} = $3`;
    const { rows } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${table} WHERE partner_id = $1 AND (${hasEnvironment ? 'environment = $2' : "$2 = 'sandbox'"}) AND ${matches}`,
      [partnerId, environment, subscriberId],
    );
    held[`${table}.${column}`] = rows[0].n;
  }
  return held;
}

beforeAll(async () => {
  db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
  await importCatalog(t, manifest([manifestNovel(NOVEL, { chapters: 1, audio: { file: DEMO_MP3, status: 'ready' } })]));
  await importCatalog(t, manifest([manifestNovel(NOVEL, { chapters: 1, audio: { file: DEMO_MP3, status: 'ready' } })]), 'sandbox');
  a = await partnerClient(t, { scopes: [...SCOPES] });
  const endpoint = await platform(a, 'POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/hooks', events: ['novel.finished'] });
  expect(endpoint.statusCode).toBe(201);
  endpointId = endpoint.json().id;
  await seedPreviousMonth(a.partnerId, SUBSCRIBER);
  await seedPreviousMonth(a.partnerId, OTHER);
  await liveReader(a, SUBSCRIBER);
  await liveReader(a, OTHER);
  // The subscriber's novel was started and finished last month (its counts move with it).
  await db.query(`UPDATE novel_progress SET started_at = $3, finished_at = $4 WHERE partner_id = $1 AND environment = 'live' AND subscriber_id = $2`, [
    a.partnerId,
    SUBSCRIBER,
    inPreviousMonth(4),
    inPreviousMonth(9),
  ]);
});
afterAll(() => db?.end());

/** Keys whose stored answer (a replay of a keyed write) names the subscriber. */
const storedAnswersNaming = (partnerId: string, subscriberId: string) =>
  db.query(`SELECT key FROM idempotency_keys WHERE partner_id = $1 AND strpos(response_body, $2) > 0`, [partnerId, subscriberId]);

describe('every column that holds subscriber ids', () => {
  test('is exported and erased by a registered holder, or declared exempt with a reason', async () => {
    const { covered, exempt } = t.app.get(SubscriberDataRegistry).ledger();
    for (const { reason } of exempt) expect(reason.length).toBeGreaterThan(20);
    const known = new Set([...covered, ...exempt.map((e) => e.column)]);
    const columns = (await subscriberColumns()).map(({ table, column }) => `${table}.${column}`);
    expect(columns.filter((column) => !known.has(column))).toEqual([]);
    // Nothing declared that the schema does not have (a renamed column would hide there).
    expect([...known].filter((column) => !columns.includes(column))).toEqual([]);
  });

  test('belongs to a table whose retention docs/privacy.md states (DECISIONS 29)', async () => {
    const tables = [...new Set((await subscriberColumns()).map(({ table }) => table))];
    const stated = retentionTables(readFileSync('docs/privacy.md', 'utf8'));
    expect(tables.length).toBeGreaterThan(8);
    expect(tables.filter((table) => !stated.has(table))).toEqual([]);
  });
});

/** The tables named in the first column of docs/privacy.md's retention table (section 5). */
function retentionTables(privacy: string): Set<string> {
  const section = privacy.slice(privacy.indexOf('## 5.'));
  const rows = section.split('\n').filter((line) => line.startsWith('| `'));
  return new Set(rows.flatMap((row) => [...row.split('|')[1].matchAll(/`(\w+)`/g)].map((m) => m[1])));
}

test('the retention check reads the tables of the first column only (planted row)', () => {
  const stated = retentionTables('## 5. Retention\n\n| Table | What |\n|---|---|\n| `a_table`, `b_table` | mentions `c_table` |\n');
  expect([...stated]).toEqual(['a_table', 'b_table']);
});

describe('export', () => {
  test("holds every module's data about the subscriber, in the token's environment", async () => {
    const document = await exportOf(a);
    expect(document).toMatchObject({ subscriber_id: SUBSCRIBER, environment: 'live', test_clock: null });
    expect(Date.parse(document.exported_at)).toBeGreaterThan(now.getTime() - 60_000);
    expect(document.entitlements.current.map((e: { product: string }) => e.product).sort()).toEqual(['audioapp', 'kidsapp', 'textapp']);
    expect(document.entitlements.history.length).toBeGreaterThanOrEqual(4);
    expect(document.novels).toHaveLength(1);
    const [novel] = document.novels;
    expect(novel).toMatchObject({ novel_id: NOVEL, choice_id: 'stay', progress: { current_chapter: 1 } });
    expect(novel.finished_at).not.toBeNull();
    expect(Object.keys(novel)).toEqual(['novel_id', 'started_at', 'finished_at', 'choice_id', 'chapters_read', 'progress']);
    // Three seeded readings last month, then the chapter text now (listening to it the same day adds none: ADR 0123).
    expect(novel.chapters_read.map((c: { kind: string }) => c.kind)).toEqual(['text', 'text', 'text', 'text']);
    expect(document.playback_positions).toEqual([expect.objectContaining({ novel_id: NOVEL, chapter_number: 1, position_seconds: 12 })]);
    expect(document.stream_urls).toEqual([expect.objectContaining({ novel_id: NOVEL, chapter_number: 1, client_id: a.clientId })]);
    expect(document.events).toEqual([expect.objectContaining({ event: 'novel.finished', data: expect.objectContaining({ subscriber_id: SUBSCRIBER }) })]);
    expect(document.kids_sessions).toEqual([expect.objectContaining({ child_ref: 'kid-1', story_id: 'story-1', minutes: 7.5 })]);
  });

  test('an id with no data gets empty lists', async () => {
    expect(await exportOf(a, 'nobody-here')).toMatchObject({
      subscriber_id: 'nobody-here',
      entitlements: { current: [], history: [] },
      novels: [],
      playback_positions: [],
      stream_urls: [],
      events: [],
      kids_sessions: [],
      test_clock: null,
    });
  });

  test('a malformed id is refused as elsewhere', async () => {
    const response = await platform(a, 'GET', '/subscribers/bad%20id/export');
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('invalid_request');
  });
});

describe('scopes', () => {
  test("erasing takes platform:subscribers:erase, which a partner's default credential lacks", async () => {
    expect(DEFAULT_SCOPES).not.toContain('platform:subscribers:erase');
    const issued = await t.app.get(PartnerCredentialsService).createPartner('Defaults');
    expect(issued.scopes).not.toContain('platform:subscribers:erase');
    expect(issued.scopes).toContain('platform:subscribers:read');
    const defaults = await partnerClient(t, { partnerId: a.partnerId });
    const refused = await erase(defaults);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toBe('insufficient_scope');
    expect((await exportOf(defaults)).novels).toHaveLength(1);
    const cli = COMMANDS['partner:create'].check({ positional: [], flags: { name: 'x' } }) as { scopes: string[] };
    expect(cli.scopes).not.toContain('platform:subscribers:erase');
  });
});

describe('erasure', () => {
  let b: PartnerClient;
  let sandboxOfA: PartnerClient;
  let before: Awaited<ReturnType<typeof pastFigures>>;
  let feedBefore: { seq: number; event: string; data: Record<string, unknown> }[];

  beforeAll(async () => {
    b = await partnerClient(t, { scopes: [...SCOPES] });
    await liveReader(b, SUBSCRIBER);
    sandboxOfA = await partnerClient(t, { partnerId: a.partnerId, environment: 'sandbox', scopes: [...SCOPES] });
    await liveReader(sandboxOfA, SUBSCRIBER);
    before = await pastFigures(a);
    feedBefore = (await platform(a, 'GET', '/events?limit=500')).json().data;
    // A keyed write: its stored answer names the subscriber until the erasure.
    const keyed = await t.inject({
      method: 'PUT',
      url: `/v1/subscribers/${encodeURIComponent(SUBSCRIBER)}/playback-position`,
      headers: { ...bearer(a.token), 'idempotency-key': 'erasure-keyed-write' },
      payload: { novel_id: NOVEL, chapter_id: `${NOVEL}-ch1`, position_seconds: 30 },
    });
    expect(keyed.statusCode).toBeLessThan(300);
    expect((await storedAnswersNaming(a.partnerId, SUBSCRIBER)).rows).toEqual([{ key: 'erasure-keyed-write' }]);
  });

  test('removes everything and counts it per kind', async () => {
    const response = await erase(a);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ subscriber_id: SUBSCRIBER, environment: 'live' });
    expect(Date.parse(body.erased_at)).toBeGreaterThan(now.getTime() - 60_000);
    expect(body.erased).toEqual({
      // 3 records; their changes: 2 seeded, 2 written now (textapp, audioapp).
      entitlements: 3 + 4,
      reading: 1 + 4, // the novel opened, four chapter texts read
      listening: 1, // the position
      endings: 1,
      stream_urls: 1,
      events: 1,
      kids_sessions: 1,
    });
    const document = await exportOf(a);
    expect(document).toMatchObject({
      entitlements: { current: [], history: [] },
      novels: [],
      playback_positions: [],
      stream_urls: [],
      events: [],
      kids_sessions: [],
    });
  });

  test('leaves no row of any table holding the id in that environment', async () => {
    const held = await rowsHolding(a.partnerId, 'live', SUBSCRIBER);
    expect(Object.entries(held).filter(([, n]) => n > 0)).toEqual([]);
    // The walk looks where the data was: the other environment still holds it.
    const sandbox = await rowsHolding(a.partnerId, 'sandbox', SUBSCRIBER);
    expect(sandbox['novel_progress.subscriber_id']).toBe(1);
  });

  test('forgets the stored answers of keyed writes that named the subscriber', async () => {
    expect((await storedAnswersNaming(a.partnerId, SUBSCRIBER)).rows).toEqual([]);
  });

  test('keeps the events in the feed at their sequence, nulled and marked erased', async () => {
    const feedAfter: typeof feedBefore = (await platform(a, 'GET', '/events?limit=500')).json().data;
    expect(feedAfter.map(({ seq, event }) => [seq, event])).toEqual(feedBefore.map(({ seq, event }) => [seq, event]));
    const erased = feedBefore.findIndex((item) => item.data.subscriber_id === SUBSCRIBER);
    expect(erased).toBeGreaterThanOrEqual(0);
    expect(feedAfter[erased].data).toEqual({ ...feedBefore[erased].data, subscriber_id: null, erased: true });
    const kept = feedBefore.findIndex((item) => item.data.subscriber_id === OTHER);
    expect(feedAfter[kept]).toEqual(feedBefore[kept]);
    // The nulled payload is still one the served document describes, for feed and webhook alike.
    const document = new OpenApiDocument((await t.inject({ method: 'GET', url: '/docs/openapi.json' })).json());
    const { seq: _seq, ...payload } = feedAfter[erased];
    const schemas: Record<string, string> = { 'novel.finished': 'NovelFinishedEvent', 'chapter.unlocked': 'ChapterUnlockedEvent' };
    const schema = schemas[payload.event];
    expect(document.validate({ $ref: `#/components/schemas/${schema}` }, payload)).toBeNull();
  });

  test('cancels the deliveries of its events not yet made', async () => {
    const deliveries = (await platform(a, 'GET', `/webhook-endpoints/${endpointId}/deliveries`)).json().data as { event_id: string; status: string }[];
    const eventOf = (subscriberId: string) => feedBefore.find((item) => item.data.subscriber_id === subscriberId) as unknown as { event_id: string };
    expect(deliveries.find((d) => d.event_id === eventOf(SUBSCRIBER).event_id)?.status).toBe('cancelled');
    expect(deliveries.find((d) => d.event_id === eventOf(OTHER).event_id)?.status).toBe('pending');
  });

  test("leaves last month's billing, engagement and children's figures as they were", async () => {
    expect(before.billing.textapp).toMatchObject({ period_peak_active: 2 });
    expect(before.kids).toEqual([
      { measure: 'completions', total: 2 },
      { measure: 'minutes', total: 15 },
    ]);
    expect(before.engagement).toMatchObject({ active_readers: 2, completion_rate: 1 });
    expect(await pastFigures(a)).toEqual(before);
  });

  test('is idempotent: again, every count is 0', async () => {
    const again = await erase(a);
    expect(again.statusCode).toBe(200);
    expect(again.json().erased).toEqual({ entitlements: 0, reading: 0, listening: 0, endings: 0, stream_urls: 0, events: 0, kids_sessions: 0 });
  });

  test('leaves the same id at another partner and in the other environment untouched', async () => {
    for (const client of [b, sandboxOfA]) {
      const document = await exportOf(client);
      expect(document.novels).toHaveLength(1);
      expect(document.entitlements.current).toHaveLength(2);
      expect(document.playback_positions).toHaveLength(1);
      expect(document.events).toHaveLength(1);
    }
    expect((await exportOf(a, OTHER)).novels).toHaveLength(1);
  });

  test('lets the id be used again, starting with no data', async () => {
    await a.entitle(SUBSCRIBER, { product: 'textapp' });
    const document = await exportOf(a);
    expect(document.entitlements.current).toEqual([expect.objectContaining({ product: 'textapp', status: 'active' })]);
    expect(document.entitlements.history).toHaveLength(1);
    expect(document.novels).toEqual([]);
  });

  test('drops the subscriber from its test clock (sandbox)', async () => {
    const clock = await platform(sandboxOfA, 'POST', '/test-clocks', { frozen_time: new Date(Date.now() + DAY).toISOString() });
    expect(clock.statusCode).toBe(201);
    const { id } = clock.json();
    expect(
      (await t.inject({ method: 'PUT', url: `/platform/v1/test-clocks/${id}/subscribers/on-a-clock`, headers: bearer(sandboxOfA.token) })).statusCode,
    ).toBe(200);
    expect((await exportOf(sandboxOfA, 'on-a-clock')).test_clock).toMatchObject({ id, name: null });
    expect((await erase(sandboxOfA, 'on-a-clock')).statusCode).toBe(200);
    expect((await platform(sandboxOfA, 'GET', `/test-clocks/${id}`)).json().subscribers).toEqual([]);
    expect((await exportOf(sandboxOfA, 'on-a-clock')).test_clock).toBeNull();
  });

  test('subscriber:erase does the same from the command line, in the environment it names', async () => {
    const command = COMMANDS['subscriber:erase'];
    const input = await command.check({ positional: [], flags: { partner: a.partnerId, subscriber: SUBSCRIBER, sandbox: true } });
    const printed = (await command.run(t.app, input)) as { environment: string; erased: Record<string, number> };
    expect(printed).toMatchObject({ subscriber_id: SUBSCRIBER, environment: 'sandbox', erased: { reading: 2, endings: 1, events: 1 } });
    expect((await exportOf(sandboxOfA)).novels).toEqual([]);
    expect((await exportOf(b)).novels).toHaveLength(1);
    expect(() => command.check({ positional: [], flags: { partner: a.partnerId, subscriber: 'bad id' } })).toThrow('--subscriber must be');
  });
});
