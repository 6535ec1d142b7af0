import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ApiError,
  AuthenticationError,
  ConflictError,
  ConnectionError,
  InvalidRequestError,
  NotFoundError,
  PartnerError,
  RateLimitError,
  ServerError,
  TimeoutError,
  type RetryEvent,
} from '../../sdk/src/index.js';
import { sandboxClient } from './sdk-test-kit.js';

/**
 * The SDK's side of `Idempotency-Key` (DECISIONS 30) and its error classes, against a local
 * HTTP server scripted per test: it records each request and answers as the test says (or
 * drops the connection), so that what the SDK sends on a retry is seen exactly.
 */
interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}
type Answer = (request: Received, response: ServerResponse) => void;

let server: Server;
let origin: string;
const received: Received[] = [];
let script: Answer[] = [];
const credential = { client_id: 'sbx_local', client_secret: 'secret', partner_id: 'local' };
const token = (_request: Received, response: ServerResponse) => json(response, 200, { access_token: 'token', token_type: 'Bearer', expires_in: 600 });
const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
const drop: Answer = (_request, response) => response.socket?.destroy();
const writes = () => received.filter((request) => !request.path.endsWith('/oauth2/token'));

beforeAll(async () => {
  server = createServer(async (request, response) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    const entry = { method: request.method!, path: request.url!, headers: request.headers, body };
    received.push(entry);
    const answer = entry.path.endsWith('/oauth2/token') ? token : script.shift();
    if (!answer) return json(response, 500, { error: 'server_error', error_description: 'the test scripted no answer' });
    answer(entry, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  received.length = 0;
  script = [];
});

test('a write whose connection drops is sent again with the same Idempotency-Key, and succeeds', async () => {
  const retries: RetryEvent[] = [];
  const client = sandboxClient(origin, credential, { retry: { backoffMs: 10 }, onRetry: (event) => retries.push(event) });
  script = [
    drop,
    (_request, response) => json(response, 201, { id: 'endpoint-1', url: 'https://hooks.example.com', events: ['novel.finished'], secret: 'whsec_x' }),
  ];
  const endpoint = await client.createWebhookEndpoint({ body: { url: 'https://hooks.example.com', events: ['novel.finished'] } });

  expect(endpoint.id).toBe('endpoint-1');
  const [first, second] = writes();
  expect(writes()).toHaveLength(2);
  expect(first).toMatchObject({ method: 'POST', path: '/platform/v1/webhook-endpoints' });
  expect(first!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
  expect(second!.headers['idempotency-key']).toBe(first!.headers['idempotency-key']);
  expect(second!.body).toBe(first!.body);
  expect(retries.map((event) => event.reason)).toEqual(['network']);
  // The token request takes no key (DECISIONS 30: the token endpoint aside).
  expect(received.find((request) => request.path.endsWith('/oauth2/token'))!.headers['idempotency-key']).toBeUndefined();
});

test('each call has a key of its own on POST, PUT and DELETE, none on GET; a caller may pass its own', async () => {
  const client = sandboxClient(origin, credential);
  const ok: Answer = (_request, response) => json(response, 200, {});
  const gone: Answer = (_request, response) => response.writeHead(204).end();
  script = [ok, ok, ok, gone, ok, ok];
  await client.chooseEnding({ path: { id: 'the-heir' }, body: { subscriber_id: 'sub-1', choice_id: 'stay' } });
  await client.chooseEnding({ path: { id: 'the-heir' }, body: { subscriber_id: 'sub-1', choice_id: 'stay' } });
  await client.putPlaybackPosition({ path: { id: 'sub-1' }, body: { novel_id: 'the-heir', chapter_id: 'the-heir-ch1', position_seconds: 1 } });
  await client.removeNovel({ path: { id: 'sub-1', novel_id: 'the-heir' } });
  await client.listCategories();
  await client.upsertEntitlement({ body: { subscriber_id: 'sub-1', product: 'audioapp', status: 'active' } }, { idempotencyKey: 'billing-job-42' });

  const keys = writes().map((request) => `${request.method} ${request.headers['idempotency-key'] ?? '-'}`);
  expect(keys[5]).toBe('POST billing-job-42');
  expect(keys[4]).toBe('GET -');
  expect(new Set(keys.slice(0, 4)).size).toBe(4);
  expect(keys.slice(0, 4).map((key) => key.split(' ')[0])).toEqual(['POST', 'POST', 'PUT', 'DELETE']);
  // A key outside the header's rule is refused before anything is sent.
  await expect(client.chooseEnding({ path: { id: 'the-heir' }, body: { subscriber_id: 'sub-1', choice_id: 'stay' } }, { idempotencyKey: '' })).rejects.toThrow(
    TypeError,
  );
  expect(writes()).toHaveLength(6);
});

test('409 idempotency_key_in_use is retried after its Retry-After with the same key; 502 too; idempotent: false fails at once', async () => {
  const retries: RetryEvent[] = [];
  const client = sandboxClient(origin, credential, { retry: { backoffMs: 10 }, onRetry: (event) => retries.push(event) });
  const inUse: Answer = (_request, response) =>
    json(response, 409, { error: 'idempotency_key_in_use', error_description: 'still being processed' }, { 'retry-after': '1' });
  const badGateway: Answer = (_request, response) => response.writeHead(502).end('bad gateway');
  script = [inUse, badGateway, (_request, response) => json(response, 201, { subscriber_id: 'sub-1', current_chapter: 1 })];
  await client.openNovel({ path: { id: 'sub-1' }, body: { novel_id: 'the-heir' } });

  expect(writes().map((request) => request.headers['idempotency-key'])).toEqual(Array(3).fill(writes()[0]!.headers['idempotency-key']));
  expect(retries.map((event) => event.reason)).toEqual(['idempotency_key_in_use', 'unavailable']);
  expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(1_000);

  script = [drop];
  const failure = await client.openNovel({ path: { id: 'sub-1' }, body: { novel_id: 'the-heir' } }, { idempotent: false }).catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(ConnectionError);
  expect(failure).toMatchObject({ attempts: 1 });
});

test('an error answer is the ApiError subclass of its status family; no answer is a ConnectionError, a timeout a TimeoutError', async () => {
  const client = sandboxClient(origin, credential, { retry: { maxRetries: 0 } });
  const cases = [
    [400, 'invalid_request', InvalidRequestError],
    [422, 'idempotency_key_reused', InvalidRequestError],
    [401, 'invalid_token', AuthenticationError],
    [404, 'not_found', NotFoundError],
    [410, 'events_expired', NotFoundError],
    [409, 'ending_already_chosen', ConflictError],
    [429, 'rate_limited', RateLimitError],
    [503, 'temporarily_unavailable', ServerError],
  ] as const;
  for (const [status, error, kind] of cases) {
    script = [(_request, response) => json(response, status, { error, error_description: 'scripted' }, status === 401 ? {} : { 'retry-after': '1' })];
    if (status === 401) script.push(script[0]!); // refused twice: once more with a new token, then the error
    const failure = await client
      .chooseEnding({ path: { id: 'the-heir' }, body: { subscriber_id: 'sub-1', choice_id: 'stay' } })
      .catch((caught: unknown) => caught);
    expect({ status, kind: (failure as Error).constructor.name }).toEqual({ status, kind: kind.name });
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toBeInstanceOf(PartnerError);
    expect(failure).toMatchObject({ status, error, name: kind.name });
  }

  script = [() => undefined]; // never answers
  const slow = await client.listCategories({}, { timeoutMs: 200 }).catch((caught: unknown) => caught);
  expect(slow).toBeInstanceOf(TimeoutError);
  expect(slow).toBeInstanceOf(ConnectionError);
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const refusedOrigin = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const refused = await sandboxClient(refusedOrigin, credential, { retry: { maxRetries: 0 } })
    .listCategories()
    .catch((caught: unknown) => caught);
  expect(refused).toBeInstanceOf(ConnectionError);
  expect(refused).not.toBeInstanceOf(TimeoutError);
  expect(refused).toBeInstanceOf(PartnerError);
});
