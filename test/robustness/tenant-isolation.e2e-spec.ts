import pg from 'pg';
import { DataSource } from 'typeorm';
import { SCOPES } from '../../src/modules/identity/index.js';
import type { Environment } from '../../src/shared/tenancy/tenant.js';
import { importCatalog, manifest, manifestNovel } from '../fixtures/catalog-fixture.js';
import { partnerClient, type PartnerClient } from '../fixtures/partner-client.js';
import { documentedOperations, expectDocumented, type DocumentedOperation } from '../support/openapi.js';
import { bearer, startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Tenant isolation (DECISIONS 2, 17): whoever calls with partner A's subscriber id,
 * endpoint id or event id, from another partner or from A's other environment, sees
 * nothing of A's and changes nothing of A's. A's state is read before and after every
 * attempt, through A's own endpoints and in every table keyed by (partner, environment).
 *
 * A new subscriber-scoped endpoint is one row of ROWS: what a caller with no data of its
 * own gets from it. A row whose route is not in the app fails, so renaming a route cannot
 * switch its row off.
 */

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** A's identifiers that an attacker replays. */
interface Victim {
  client: PartnerClient;
  subscriberId: string;
  endpointId: string;
  eventId: string;
}

interface Row {
  name: string;
  surface: 'platform' | 'reading';
  method: Method;
  path: (v: Victim) => string;
  body?: (v: Victim) => object;
  /** The answer of a caller with no data of its own: none of A's may show through. */
  stranger: { status: number; body?: unknown };
}

const READING = 'iso-reading';
const FINISHED = 'iso-finished';
const error = (code: string) => ({ error: code, error_description: expect.any(String) });

const ROWS: Row[] = [
  // Platform: the environment comes from the token.
  {
    name: 'entitlement write',
    surface: 'platform',
    method: 'POST',
    path: () => '/entitlements',
    body: (v) => ({ subscriber_id: v.subscriberId, product: 'textapp', status: 'canceled', plan: 'attacker-plan' }),
    stranger: { status: 200, body: { ok: true, applied: true } },
  },
  {
    name: 'subscriber status',
    surface: 'platform',
    method: 'GET',
    path: (v) => `/subscriber/${v.subscriberId}/status`,
    stranger: { status: 200, body: { subscriber_id: expect.any(String), entitlements: [] } },
  },
  {
    name: 'subscriber export',
    surface: 'platform',
    method: 'GET',
    path: (v) => `/subscribers/${v.subscriberId}/export`,
    stranger: {
      status: 200,
      body: expect.objectContaining({
        entitlements: { current: [], history: [] },
        novels: [],
        playback_positions: [],
        stream_urls: [],
        events: [],
        kids_sessions: [],
        test_clock: null,
      }),
    },
  },
  {
    name: 'subscriber erasure',
    surface: 'platform',
    method: 'DELETE',
    path: (v) => `/subscribers/${v.subscriberId}`,
    stranger: {
      status: 200,
      body: expect.objectContaining({ erased: { entitlements: 0, reading: 0, listening: 0, endings: 0, stream_urls: 0, events: 0, kids_sessions: 0 } }),
    },
  },
  { name: 'webhook endpoint list', surface: 'platform', method: 'GET', path: () => '/webhook-endpoints', stranger: { status: 200, body: { data: [] } } },
  {
    name: 'event feed',
    surface: 'platform',
    method: 'GET',
    path: () => '/events',
    stranger: { status: 200, body: { data: [], next_after: 0, has_more: false } },
  },
  {
    name: 'webhook deliveries',
    surface: 'platform',
    method: 'GET',
    path: (v) => `/webhook-endpoints/${v.endpointId}/deliveries`,
    stranger: { status: 404, body: error('not_found') },
  },
  {
    name: 'webhook secret rotation',
    surface: 'platform',
    method: 'POST',
    path: (v) => `/webhook-endpoints/${v.endpointId}/rotate-secret`,
    stranger: { status: 404, body: error('not_found') },
  },
  {
    name: 'webhook endpoint removal',
    surface: 'platform',
    method: 'DELETE',
    path: (v) => `/webhook-endpoints/${v.endpointId}`,
    stranger: { status: 404, body: error('not_found') },
  },
  {
    name: 'webhook redelivery',
    surface: 'platform',
    method: 'POST',
    path: (v) => `/webhook-events/${v.eventId}/redeliver`,
    stranger: { status: 404, body: error('not_found') },
  },
  // Text and audio: the environment comes from the mount, which must match the token's.
  {
    name: 'open a novel',
    surface: 'reading',
    method: 'POST',
    path: (v) => `/subscribers/${v.subscriberId}/novels`,
    body: () => ({ novel_id: READING }),
    stranger: { status: 403, body: error('subscriber_not_entitled') },
  },
  {
    name: 'remove a novel',
    surface: 'reading',
    method: 'DELETE',
    path: (v) => `/subscribers/${v.subscriberId}/novels/${READING}`,
    stranger: { status: 404, body: error('not_found') },
  },
  ...(['subscriber', 'subscribers'] as const).map((form): Row => ({
    name: `reading progress (/${form})`,
    surface: 'reading',
    method: 'GET',
    path: (v) => `/${form}/${v.subscriberId}/reading-progress`,
    stranger: { status: 200, body: { subscriber_id: expect.any(String), active_novel_count: 0, active_novel_limit: 3, novels: [] } },
  })),
  {
    name: 'endings state',
    surface: 'reading',
    method: 'GET',
    path: (v) => `/novels/${FINISHED}/choices?subscriber_id=${v.subscriberId}`,
    stranger: { status: 200, body: { novel_id: FINISHED, available: false, choices: [] } },
  },
  {
    name: 'ending choice',
    surface: 'reading',
    method: 'POST',
    path: () => `/novels/${FINISHED}/choices`,
    body: (v) => ({ subscriber_id: v.subscriberId, choice_id: 'leave' }),
    stranger: { status: 403, body: error('subscriber_not_entitled') },
  },
  {
    name: 'chapter text',
    surface: 'reading',
    method: 'GET',
    path: (v) => `/novels/${READING}/chapters/1/content?subscriber_id=${v.subscriberId}`,
    stranger: { status: 403, body: error('subscriber_not_entitled') },
  },
  {
    name: 'chapters with release state',
    surface: 'reading',
    method: 'GET',
    path: (v) => `/novels/${READING}/chapters?subscriber_id=${v.subscriberId}`,
    stranger: {
      status: 200,
      body: { novel_id: READING, total_chapters: 3, chapters: [1, 2, 3].map((n) => expect.objectContaining({ chapter_number: n, status: 'not_started' })) },
    },
  },
  ...(['subscribers', 'subscriber'] as const).flatMap((form): Row[] => [
    {
      name: `playback read (/${form})`,
      surface: 'reading',
      method: 'GET',
      path: (v) => `/${form}/${v.subscriberId}/playback-position?novel_id=${READING}`,
      stranger: { status: 404, body: error('not_found') },
    },
    {
      name: `playback write (/${form})`,
      surface: 'reading',
      method: 'PUT',
      path: (v) => `/${form}/${v.subscriberId}/playback-position`,
      body: () => ({ novel_id: READING, chapter_id: `${READING}-ch1`, position_seconds: 1 }),
      // The attacker's own subscriber has not opened the novel: nothing is released to it.
      stranger: { status: 400, body: error('invalid_request') },
    },
  ]),
  {
    name: 'stream URL',
    surface: 'reading',
    method: 'GET',
    path: (v) => `/novels/${READING}/chapters/1/stream?subscriber_id=${v.subscriberId}`,
    stranger: { status: 403, body: error('plan_without_audio') },
  },
];

/**
 * Who attacks whose data, and how. `crossMount` attackers call the victim's own mount
 * with a token of the other environment: refused outright, whatever the row.
 */
interface Attack {
  name: string;
  victimEnvironment: Environment;
  attacker: (victim: PartnerClient) => Promise<PartnerClient>;
  crossMount?: boolean;
}

const otherEnvironment = (environment: Environment): Environment => (environment === 'live' ? 'sandbox' : 'live');

const ATTACKS: Attack[] = [
  { name: "partner B (live) with partner A's live ids", victimEnvironment: 'live', attacker: () => partnerClient(t, { scopes: [...SCOPES] }) },
  {
    name: "partner B (sandbox) with partner A's sandbox ids",
    victimEnvironment: 'sandbox',
    attacker: () => partnerClient(t, { environment: 'sandbox', scopes: [...SCOPES] }),
  },
  ...(['live', 'sandbox'] as const).flatMap((victimEnvironment): Attack[] => [
    {
      name: `partner A's ${otherEnvironment(victimEnvironment)} credential with A's ${victimEnvironment} ids`,
      victimEnvironment,
      attacker: (victim) => partnerClient(t, { environment: otherEnvironment(victimEnvironment), partnerId: victim.partnerId, scopes: [...SCOPES] }),
    },
    {
      name: `partner A's ${otherEnvironment(victimEnvironment)} token on the ${victimEnvironment} mount`,
      victimEnvironment,
      attacker: (victim) => partnerClient(t, { environment: otherEnvironment(victimEnvironment), partnerId: victim.partnerId, scopes: [...SCOPES] }),
      crossMount: true,
    },
  ]),
];

let t: TestApp;
let db: DataSource;
let operations: DocumentedOperation[];

beforeAll(async () => {
  // No delivery worker: A's deliveries stay exactly as they were written.
  t = await startTestApp({ WEBHOOK_WORKER: 'false' });
  db = t.app.get(DataSource);
  const novels = manifest([manifestNovel(READING, { chapters: 3 }), manifestNovel(FINISHED, { chapters: 3 })]);
  // The same novel ids in both catalogs, so a refusal is never only "no such novel here".
  await importCatalog(t, novels, 'live');
  await importCatalog(t, novels, 'sandbox');
  operations = await documentedOperations(t);
});
afterAll(() => t.close());

let victims = 0;

/** Partner A with one subscriber holding some of everything: entitlements, progress, a position, an ending, a webhook. */
async function seedVictim(environment: Environment): Promise<Victim> {
  const client = await partnerClient(t, { environment });
  const subscriberId = `shared-${++victims}`;
  await client.entitle(subscriberId, { product: 'textapp', plan: 'text_early' });
  await client.entitle(subscriberId, { product: 'audioapp', plan: 'audio_standard' });
  for (const novelId of [READING, FINISHED]) expectStatus(await client.call('POST', `/subscribers/${subscriberId}/novels`, { novel_id: novelId }), 201);
  await db.query(`UPDATE novel_progress SET started_at = now() - interval '10 days' WHERE partner_id = $1 AND environment = $2 AND subscriber_id = $3`, [
    client.partnerId,
    environment,
    subscriberId,
  ]);
  expectStatus(
    await client.call('PUT', `/subscribers/${subscriberId}/playback-position`, { novel_id: READING, chapter_id: `${READING}-ch2`, position_seconds: 777 }),
    200,
  );
  expectStatus(await client.call('GET', `/novels/${READING}/chapters/2/content?subscriber_id=${subscriberId}`), 200);
  const endpoint = await platform(client, 'POST', '/webhook-endpoints', { url: 'https://93.184.215.14/hook', events: ['novel.finished'] });
  expectStatus(endpoint, 201);
  expectStatus(await client.call('POST', `/novels/${FINISHED}/choices`, { subscriber_id: subscriberId, choice_id: 'stay' }), 200);
  const endpointId = endpoint.json().id;
  const [delivery] = (await platform(client, 'GET', `/webhook-endpoints/${endpointId}/deliveries`)).json().data;
  return { client, subscriberId, endpointId, eventId: delivery.event_id };
}

const platform = (client: PartnerClient, method: Method, path: string, payload?: object) =>
  t.inject({ method, url: `/platform/v1${path}`, headers: bearer(client.token), ...(payload && { payload }) });

function expectStatus(response: Awaited<ReturnType<TestApp['inject']>>, status: number) {
  if (response.statusCode !== status) throw new Error(`expected ${status}, got ${response.statusCode} ${response.body}`);
}

/** A's state as A sees it through its own endpoints, and every row of A's tenant. */
async function stateOf(victim: Victim) {
  const { client, subscriberId, endpointId } = victim;
  const reads: [string, () => ReturnType<TestApp['inject']>][] = [
    ['status', () => platform(client, 'GET', `/subscriber/${subscriberId}/status`)],
    ['webhook endpoints', () => platform(client, 'GET', '/webhook-endpoints')],
    ['deliveries', () => platform(client, 'GET', `/webhook-endpoints/${endpointId}/deliveries`)],
    ['reading progress', () => client.call('GET', `/subscriber/${subscriberId}/reading-progress`)],
    ['playback', () => client.call('GET', `/subscribers/${subscriberId}/playback-position?novel_id=${READING}`)],
    ['chapters', () => client.call('GET', `/novels/${READING}/chapters?subscriber_id=${subscriberId}`)],
    ...[READING, FINISHED].map((novelId): [string, () => ReturnType<TestApp['inject']>] => [
      `endings of ${novelId}`,
      () => client.call('GET', `/novels/${novelId}/choices?subscriber_id=${subscriberId}`),
    ]),
  ];
  const answers: Record<string, unknown> = {};
  for (const [name, read] of reads) {
    const response = await read();
    answers[name] = { status: response.statusCode, body: response.json() };
  }
  return { answers, rows: await tenantRows(client) };
}

/**
 * Every row keyed by A's (partner, environment), in any table that has both columns
 * (tables added later are included without a change here), with the webhook tables
 * that hang off A's endpoints.
 */
async function tenantRows(client: PartnerClient): Promise<Record<string, string[]>> {
  const tables: { table_name: string }[] = await db.query(
    `SELECT table_name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name IN ('partner_id', 'environment')
     GROUP BY table_name HAVING count(*) = 2 ORDER BY table_name`,
  );
  const queries: [string, string][] = [
    ...tables.map(({ table_name }): [string, string] => [
      table_name,
      `SELECT r::text AS row FROM ${pg.escapeIdentifier(table_name)} r WHERE partner_id = $1 AND environment = $2`,
    ]),
    [
      'webhook_endpoint_secrets',
      `SELECT s::text AS row FROM webhook_endpoint_secrets s JOIN webhook_endpoints e ON e.id = s.endpoint_id WHERE e.partner_id = $1 AND e.environment = $2`,
    ],
    [
      'webhook_delivery_attempts',
      `SELECT a::text AS row FROM webhook_delivery_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.partner_id = $1 AND d.environment = $2`,
    ],
  ];
  const rows: Record<string, string[]> = {};
  for (const [name, sql] of queries) {
    rows[name] = ((await db.query(sql, [client.partnerId, client.environment])) as { row: string }[]).map((r) => r.row).sort();
  }
  return rows;
}

function urlOf(attacker: PartnerClient, attack: Attack, row: Row, victim: Victim): string {
  const base = row.surface === 'platform' ? '/platform/v1' : attack.crossMount ? victim.client.base : attacker.base;
  return `${base}${row.path(victim)}`;
}

function send(attacker: PartnerClient, attack: Attack, row: Row, victim: Victim) {
  const payload = row.body?.(victim);
  return t.inject({ method: row.method, url: urlOf(attacker, attack, row, victim), headers: bearer(attacker.token), ...(payload && { payload }) });
}

describe.each(ATTACKS)('$name', (attack) => {
  // Crossing mounts only concerns the text and audio routes; the platform serves both environments.
  const rows = ROWS.filter((row) => !attack.crossMount || row.surface === 'reading');

  it.each(rows.map((row) => [row.name, row]))('%s: sees nothing of A and changes nothing of A', async (_, row) => {
    const victim = await seedVictim(attack.victimEnvironment);
    const attacker = await attack.attacker(victim.client);
    expectDocumented(operations, row.name, row.method, urlOf(attacker, attack, row, victim));
    const before = await stateOf(victim);
    expect(before.rows.entitlements).toHaveLength(2);

    const response = await send(attacker, attack, row, victim);
    const expected = attack.crossMount ? { status: 401, body: error('invalid_token') } : row.stranger;
    expect({ status: response.statusCode, body: response.body ? response.json() : undefined }).toEqual(expected);

    expect(await stateOf(victim)).toEqual(before);
  });
});
