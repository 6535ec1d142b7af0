import { SCOPES } from '../../src/modules/identity/index.js';
import { subscriberIdPipe } from '../../src/shared/http/identifiers.js';
import { statementsDuring } from '../fixtures/query-counter.js';
import { documentedOperations, expectDocumented, type DocumentedOperation } from '../support/openapi.js';
import { bearer, startTestApp, type TestApp } from '../support/test-app.js';

/**
 * DECISIONS 19: every identifier in a path, a query or a body (and every integer in a
 * query) is checked against its rule before any query runs. Each malformed value is sent in every place that takes that kind
 * of identifier; the answer names the parameter, and the database sees no statement.
 */

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
type Kind = 'subscriber id' | 'novel id' | 'chapter number' | 'webhook id' | 'integer parameter' | 'client id';

/** One place an identifier goes; `at(value)` builds the request with the value in that place. */
interface Slot {
  kind: Kind;
  name: string;
  method: Method;
  /** The request with the value in its place; without `headers`, the partner's bearer token authenticates it. */
  at: (value: string) => { url: string; body?: object | string; headers?: Record<string, string> };
  /** The value sits in a URL path segment, where "" and ".." route elsewhere (the URL is resolved first). */
  inPath?: boolean;
}

const path = encodeURIComponent;
const query = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);

const BAD_VALUES: Record<Kind, string[]> = {
  'subscriber id': ['s'.repeat(129), '', 'bad id', 'a/b', 'a\\b', 'sub\u0000', 'sübscriber', '<script>', "x' OR '1'='1", 'a#b', 'a?b', 'a%b', 'a+b', '.', '..'],
  'novel id': [
    'The-Heir',
    'the..heir',
    '..',
    '../etc',
    'the_heir',
    'the heir',
    '-heir',
    'heir-',
    'the--heir',
    'n'.repeat(101),
    '',
    'héir',
    "x' OR '1'='1",
    'the.heir',
  ],
  'chapter number': ['0', '-1', '1.5', 'abc', '100001', '1e3', '0x10', ' 1', '99999999999999999999', 'NaN', 'Infinity'],
  // Query integers: decimal digits only (no exponent, hex, sign, spaces or fraction), within range.
  'integer parameter': ['1e2', '0x10', ' 2', '2 ', '+2', '2.0', '1e21', '999999999999999999999', '0', '-1', ''],
  // Client ids on the token endpoints (HTTP Basic is form-decoded first, so %00 is a NUL).
  'client id': ['a%00b', 'x'.repeat(65), 'a b', 'ünicode', "x' OR '1'='1", 'a/b'],
  'webhook id': [
    'not-a-uuid',
    '123',
    '00000000000040008000000000000000',
    '00000000-0000-4000-8000-0000000000001',
    "x' OR '1'='1",
    '00000000-0000-4000-8000-00000000000g',
  ],
};

const OK = { subscriber: 'sub-1', novel: 'some-novel', uuid: '00000000-0000-4000-8000-000000000000' };

const SLOTS: Slot[] = [
  // Subscriber ids in paths, queries and bodies.
  { kind: 'subscriber id', name: 'subscriber status', method: 'GET', inPath: true, at: (v) => ({ url: `/platform/v1/subscriber/${path(v)}/status` }) },
  { kind: 'subscriber id', name: 'subscriber export', method: 'GET', inPath: true, at: (v) => ({ url: `/platform/v1/subscribers/${path(v)}/export` }) },
  { kind: 'subscriber id', name: 'subscriber erasure', method: 'DELETE', inPath: true, at: (v) => ({ url: `/platform/v1/subscribers/${path(v)}` }) },
  {
    kind: 'subscriber id',
    name: 'entitlement write',
    method: 'POST',
    at: (v) => ({ url: '/platform/v1/entitlements', body: { subscriber_id: v, product: 'textapp', status: 'active' } }),
  },
  ...['subscriber', 'subscribers'].map((form): Slot => ({
    kind: 'subscriber id',
    name: `reading progress (/${form})`,
    method: 'GET',
    inPath: true,
    at: (v) => ({ url: `/v1/${form}/${path(v)}/reading-progress` }),
  })),
  {
    kind: 'subscriber id',
    name: 'open a novel',
    method: 'POST',
    inPath: true,
    at: (v) => ({ url: `/v1/subscribers/${path(v)}/novels`, body: { novel_id: OK.novel } }),
  },
  { kind: 'subscriber id', name: 'remove a novel', method: 'DELETE', inPath: true, at: (v) => ({ url: `/v1/subscribers/${path(v)}/novels/${OK.novel}` }) },
  ...['subscriber', 'subscribers'].flatMap((form): Slot[] => [
    {
      kind: 'subscriber id',
      name: `playback read (/${form})`,
      method: 'GET',
      inPath: true,
      at: (v) => ({ url: `/v1/${form}/${path(v)}/playback-position?novel_id=${OK.novel}` }),
    },
    {
      kind: 'subscriber id',
      name: `playback write (/${form})`,
      method: 'PUT',
      inPath: true,
      at: (v) => ({ url: `/v1/${form}/${path(v)}/playback-position`, body: { novel_id: OK.novel, chapter_id: `${OK.novel}-ch1`, position_seconds: 1 } }),
    },
  ]),
  {
    kind: 'subscriber id',
    name: 'chapters with release state',
    method: 'GET',
    at: (v) => ({ url: `/v1/novels/${OK.novel}/chapters?subscriber_id=${query(v)}` }),
  },
  { kind: 'subscriber id', name: 'chapter text', method: 'GET', at: (v) => ({ url: `/v1/novels/${OK.novel}/chapters/1/content?subscriber_id=${query(v)}` }) },
  { kind: 'subscriber id', name: 'endings state', method: 'GET', at: (v) => ({ url: `/v1/novels/${OK.novel}/choices?subscriber_id=${query(v)}` }) },
  {
    kind: 'subscriber id',
    name: 'ending choice',
    method: 'POST',
    at: (v) => ({ url: `/v1/novels/${OK.novel}/choices`, body: { subscriber_id: v, choice_id: 'stay' } }),
  },
  {
    kind: 'subscriber id',
    name: 'stream URL',
    method: 'GET',
    at: (v) => ({ url: `/v1/novels/${OK.novel}/chapters/1/stream?subscriber_id=${query(v)}` }),
  },
  // Novel ids.
  { kind: 'novel id', name: 'chapters', method: 'GET', inPath: true, at: (v) => ({ url: `/v1/novels/${path(v)}/chapters` }) },
  {
    kind: 'novel id',
    name: 'chapter text',
    method: 'GET',
    inPath: true,
    at: (v) => ({ url: `/v1/novels/${path(v)}/chapters/1/content?subscriber_id=${OK.subscriber}` }),
  },
  {
    kind: 'novel id',
    name: 'endings state',
    method: 'GET',
    inPath: true,
    at: (v) => ({ url: `/v1/novels/${path(v)}/choices?subscriber_id=${OK.subscriber}` }),
  },
  {
    kind: 'novel id',
    name: 'ending choice',
    method: 'POST',
    inPath: true,
    at: (v) => ({ url: `/v1/novels/${path(v)}/choices`, body: { subscriber_id: OK.subscriber, choice_id: 'stay' } }),
  },
  { kind: 'novel id', name: 'remove a novel', method: 'DELETE', inPath: true, at: (v) => ({ url: `/v1/subscribers/${OK.subscriber}/novels/${path(v)}` }) },
  { kind: 'novel id', name: 'open a novel', method: 'POST', at: (v) => ({ url: `/v1/subscribers/${OK.subscriber}/novels`, body: { novel_id: v } }) },
  { kind: 'novel id', name: 'playback read', method: 'GET', at: (v) => ({ url: `/v1/subscribers/${OK.subscriber}/playback-position?novel_id=${query(v)}` }) },
  {
    kind: 'novel id',
    name: 'playback write',
    method: 'PUT',
    at: (v) => ({ url: `/v1/subscribers/${OK.subscriber}/playback-position`, body: { novel_id: v, chapter_id: `${v}-ch1`, position_seconds: 1 } }),
  },
  { kind: 'novel id', name: 'catalog category filter', method: 'GET', at: (v) => ({ url: `/v1/novels?category_id=${query(v)}` }) },
  {
    kind: 'novel id',
    name: 'stream URL',
    method: 'GET',
    inPath: true,
    at: (v) => ({ url: `/v1/novels/${path(v)}/chapters/1/stream?subscriber_id=${OK.subscriber}` }),
  },
  // Chapter numbers.
  {
    kind: 'chapter number',
    name: 'chapter text',
    method: 'GET',
    inPath: true,
    at: (v) => ({ url: `/v1/novels/${OK.novel}/chapters/${path(v)}/content?subscriber_id=${OK.subscriber}` }),
  },
  {
    kind: 'chapter number',
    name: 'stream URL',
    method: 'GET',
    inPath: true,
    at: (v) => ({ url: `/v1/novels/${OK.novel}/chapters/${path(v)}/stream?subscriber_id=${OK.subscriber}` }),
  },
  // Integers in queries.
  { kind: 'integer parameter', name: 'catalog page', method: 'GET', at: (v) => ({ url: `/v1/novels?page=${query(v)}` }) },
  { kind: 'integer parameter', name: 'catalog page size', method: 'GET', at: (v) => ({ url: `/v1/novels?page_size=${query(v)}` }) },
  {
    kind: 'integer parameter',
    name: 'deliveries limit',
    method: 'GET',
    at: (v) => ({ url: `/platform/v1/webhook-endpoints/${OK.uuid}/deliveries?limit=${query(v)}` }),
  },
  // Client ids, before the rate limiter and the credential lookup.
  ...['platform', 'kids'].map((surface): Slot => ({
    kind: 'client id',
    name: `${surface} token (HTTP Basic)`,
    method: 'POST',
    at: (v) => ({
      url: `/${surface}/v1/oauth2/token`,
      headers: { authorization: `Basic ${Buffer.from(`${v}:secret`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&scope=kidsapp%3Aengagement%3Aread',
    }),
  })),
  // Webhook endpoint and event ids: not a UUID names nothing (404), as an unknown id does.
  { kind: 'webhook id', name: 'endpoint removal', method: 'DELETE', inPath: true, at: (v) => ({ url: `/platform/v1/webhook-endpoints/${path(v)}` }) },
  {
    kind: 'webhook id',
    name: 'secret rotation',
    method: 'POST',
    inPath: true,
    at: (v) => ({ url: `/platform/v1/webhook-endpoints/${path(v)}/rotate-secret` }),
  },
  { kind: 'webhook id', name: 'deliveries', method: 'GET', inPath: true, at: (v) => ({ url: `/platform/v1/webhook-endpoints/${path(v)}/deliveries` }) },
  { kind: 'webhook id', name: 'redelivery', method: 'POST', inPath: true, at: (v) => ({ url: `/platform/v1/webhook-events/${path(v)}/redeliver` }) },
];

/** What a malformed identifier of each kind answers, and the word its description names it by. */
const REFUSAL: Record<Kind, { status: number; error: string; names: RegExp }> = {
  'subscriber id': { status: 400, error: 'invalid_request', names: /subscriber/ },
  'novel id': { status: 400, error: 'invalid_request', names: /novel|category/ },
  'chapter number': { status: 400, error: 'invalid_request', names: /chapter/ },
  'integer parameter': { status: 400, error: 'invalid_request', names: /page|limit/ },
  'client id': { status: 401, error: 'invalid_client', names: /Client authentication failed/ },
  'webhook id': { status: 404, error: 'not_found', names: /webhook/ },
};

let t: TestApp;
let token: string;
let operations: DocumentedOperation[];

beforeAll(async () => {
  // No delivery worker: its polling would show up among the statements.
  t = await startTestApp({ WEBHOOK_WORKER: 'false' });
  // Every scope, erasing a subscriber's data included (not in the default set).
  token = await t.token(await t.partner({ scopes: [...SCOPES] }));
  operations = await documentedOperations(t);
});
afterAll(() => t.close());

function send(slot: Slot, value: string) {
  const { url, body, headers } = slot.at(value);
  return t.inject({ method: slot.method, url, headers: headers ?? bearer(token), ...(body && { payload: body }) });
}

const ROUTED_ELSEWHERE = ['', '.', '..'];

const GOOD: Record<Kind, string> = {
  'subscriber id': OK.subscriber,
  'novel id': OK.novel,
  'chapter number': '1',
  'webhook id': OK.uuid,
  'integer parameter': '2',
  'client id': 'live_0123456789abcdef01234567',
};

const CASES = SLOTS.flatMap((slot) =>
  BAD_VALUES[slot.kind]
    .filter((value) => !slot.inPath || !ROUTED_ELSEWHERE.includes(value))
    .map((value) => [slot.kind, slot.name, JSON.stringify(value).slice(0, 40), slot, value] as const),
);

describe('malformed identifiers', () => {
  // A slot whose route was renamed would answer 404 without a statement: it must fail here instead.
  it.each(SLOTS.map((slot) => [slot.kind, slot.name, slot]))('%s in %s: the route is in the app', (kind, name, slot) => {
    expectDocumented(operations, `${kind} in ${name}`, slot.method, slot.at(GOOD[slot.kind]).url);
  });

  it('are refused in a valid request only for the malformed part (control: valid ids pass validation)', async () => {
    for (const slot of SLOTS) {
      const response = await send(slot, GOOD[slot.kind]);
      // Past validation, the route answers for its own reasons (unknown novel, no entitlement…), never "malformed".
      expect({ slot: `${slot.kind} in ${slot.name}`, error: response.body ? response.json().error_description : '' }).not.toEqual({
        slot: `${slot.kind} in ${slot.name}`,
        error: expect.stringMatching(/must be/),
      });
    }
  });

  it.each(CASES)('%s in %s: %s is refused before any query', async (kind, _, __, slot, value) => {
    let response!: Awaited<ReturnType<TestApp['inject']>>;
    // A request that brings its own credentials (a token endpoint) has no guard: every statement counts.
    const statements = await statementsDuring(
      t,
      async () => {
        response = await send(slot, value);
      },
      { keepAccessStatements: slot.at(value).headers !== undefined },
    );
    const { status, error, names } = REFUSAL[kind];
    expect({ status: response.statusCode, body: response.json() }).toEqual({ status, body: { error, error_description: expect.stringMatching(names) } });
    expect(statements).toEqual([]);
  });
});

describe('subscriber ids "." and ".."', () => {
  // Clients resolve them (even percent-encoded) to another path before sending, so the path
  // pipe is asked directly; in bodies and queries the table above sends them.
  it.each(['.', '..'])('are refused by the path pipe (%s), and "..." is an id', (id) => {
    expect(() => subscriberIdPipe().transform(id, { type: 'param' })).toThrow('other than "." and ".." alone');
    expect(subscriberIdPipe().transform('...', { type: 'param' })).toBe('...');
  });
});
