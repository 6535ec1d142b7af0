import { ApiError, ConnectionError, type RetryEvent } from '../../sdk/src/index.js';
import { createCredential, RecordingProxy, sandboxClient, serviceEnv, startService, type Credential, type Service } from './sdk-test-kit.js';

/**
 * Retries against the real service: a 429 storm on a service limited to 5 requests/s per
 * credential, honouring Retry-After with jitter and within the bound; network failures retried
 * for idempotent methods only (a proxy cuts connections); the error type on giving up.
 */
let service: Service;
let proxy: RecordingProxy;
let credential: Credential;

beforeAll(async () => {
  service = await startService(await serviceEnv({ RATE_LIMIT_RPS: '5', RATE_LIMIT_BURST: '5' }));
  credential = await createCredential(service.env);
  proxy = await RecordingProxy.start(service.origin);
}, 90_000);

afterAll(async () => {
  await proxy?.close();
  await service?.stop();
});

test('a storm of 40 calls at 5 requests/s: every 429 waits its Retry-After (plus jitter), and every call succeeds', async () => {
  const retries: RetryEvent[] = [];
  const client = sandboxClient(proxy.origin, credential, { retry: { maxRetries: 30 }, onRetry: (event) => retries.push(event) });
  await client.listCategories(); // the token, outside the storm
  const started = Date.now();
  const answers = await Promise.all(Array.from({ length: 40 }, () => client.listCategories()));
  const elapsed = Date.now() - started;

  expect(answers.every((answer) => Array.isArray(answer.data))).toBe(true);
  const refused = proxy.count((exchange) => exchange.status === 429);
  expect(refused).toBeGreaterThan(0);
  const limited = retries.filter((event) => event.reason === 'rate_limited');
  expect(limited).toHaveLength(refused);
  for (const event of limited) {
    expect(event.status).toBe(429);
    expect(event.retryAfter).toBeGreaterThanOrEqual(1);
    // Never before Retry-After, and at most half again (2 s at most) after it.
    expect(event.delayMs).toBeGreaterThanOrEqual(event.retryAfter! * 1000);
    expect(event.delayMs).toBeLessThanOrEqual(event.retryAfter! * 1000 + Math.min(event.retryAfter! * 500, 2_000));
  }
  // The jitter spreads the retries: not all waits alike.
  expect(new Set(limited.map((event) => event.delayMs)).size).toBeGreaterThan(limited.length / 2);
  // 40 calls at 5/s with a burst of 5 (the token call spent one): about 7 s, and not much more.
  expect(elapsed).toBeGreaterThan(5_000);
  expect(elapsed).toBeLessThan(30_000);
}, 60_000);

test('past the retry bound, the 429 is an ApiError with the contract error, status, x-request-id and Retry-After', async () => {
  const client = sandboxClient(proxy.origin, credential, { retry: { maxRetries: 1 } });
  await client.listCategories();
  const outcomes = await Promise.allSettled(Array.from({ length: 30 }, () => client.listCategories()));
  const failures = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected').map((outcome) => outcome.reason);
  expect(failures.length).toBeGreaterThan(0);
  for (const failure of failures) {
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ status: 429, error: 'rate_limited', operationId: 'sandboxListCategories', method: 'GET', retryAfter: expect.any(Number) });
    expect((failure as ApiError).requestId).toMatch(/^[\w-]{8,}$/);
    expect((failure as ApiError).errorDescription).toMatch(/Retry-After/);
    expect((failure as ApiError).headers.get('ratelimit-policy')).toMatch(/^"credential";q=5;w=1/);
  }
  // A Retry-After longer than the bound (here 0.5 s) fails at once, without waiting.
  const waits: RetryEvent[] = [];
  const impatient = sandboxClient(proxy.origin, credential, { retry: { maxRetries: 5, maxRetryAfterMs: 500 }, onRetry: (event) => waits.push(event) });
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  await impatient.listCategories();
  const storm = await Promise.allSettled(Array.from({ length: 20 }, () => impatient.listCategories()));
  expect(storm.some((outcome) => outcome.status === 'rejected' && (outcome.reason as ApiError).status === 429)).toBe(true);
  expect(waits).toEqual([]);
}, 60_000);

test('a cut connection is retried for reads and for writes, which carry one Idempotency-Key across their attempts', async () => {
  await new Promise((resolve) => setTimeout(resolve, 2_000)); // the budget refills
  const retries: RetryEvent[] = [];
  const client = sandboxClient(proxy.origin, credential, { onRetry: (event) => retries.push(event) });
  await client.upsertEntitlement({ body: { subscriber_id: 'net-1', product: 'audioapp', status: 'active', plan: 'audio_standard' } });

  proxy.dropNext('GET', '/sandbox/v1/novels');
  const page = await client.listNovels({ query: { page_size: 2 } });
  expect(page.data).toHaveLength(2);
  expect(proxy.count((exchange) => exchange.path.startsWith('/sandbox/v1/novels'))).toBe(2);

  proxy.dropNext('PUT', '/sandbox/v1/subscribers/net-1/playback-position');
  await client.openNovel({ path: { id: 'net-1' }, body: { novel_id: 'the-heir', started_at: new Date(Date.now() - 30 * 86_400_000).toISOString() } });
  await expect(
    client.putPlaybackPosition({ path: { id: 'net-1' }, body: { novel_id: 'the-heir', chapter_id: 'the-heir-ch1', position_seconds: 12 } }),
  ).resolves.toMatchObject({ position_seconds: 12 });

  // A POST is retried too: the service answers a repeated key with the first answer.
  proxy.dropNext('POST', '/sandbox/v1/novels/the-heir/choices');
  await client.chooseEnding({ path: { id: 'the-heir' }, body: { subscriber_id: 'net-1', choice_id: 'stay' } });
  const choices = proxy.exchanges.filter((exchange) => exchange.method === 'POST' && exchange.path === '/sandbox/v1/novels/the-heir/choices');
  expect(choices.map((exchange) => exchange.status)).toEqual([0, 200]);
  expect(choices[1]!.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
  expect(choices[1]!.idempotencyKey).toBe(choices[0]!.idempotencyKey);
  expect((await client.getReadingProgress({ path: { id: 'net-1' } })).novels[0]).toMatchObject({ chosen_choice_id: 'stay' });

  // A caller may still refuse the retry of a write.
  proxy.dropNext('POST', '/platform/v1/entitlements');
  const failure = await client
    .upsertEntitlement({ body: { subscriber_id: 'net-1', product: 'audioapp', status: 'active', plan: 'audio_standard' } }, { idempotent: false })
    .catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(ConnectionError);
  expect(failure).toMatchObject({ operationId: 'upsertEntitlement', method: 'POST', attempts: 1 });
  expect(retries.map((event) => event.reason)).toEqual(['network', 'network', 'network']);
}, 60_000);

test('a write whose answer is lost after the service did it is retried and answered from the stored answer: one endpoint, not two', async () => {
  await new Promise((resolve) => setTimeout(resolve, 2_000)); // the budget refills
  const retries: RetryEvent[] = [];
  const client = sandboxClient(proxy.origin, credential, { retry: { backoffMs: 50 }, onRetry: (event) => retries.push(event) });
  const before = (await client.listWebhookEndpoints()).data.length;
  proxy.loseAnswerNext('POST', '/platform/v1/webhook-endpoints');
  const created = await client.request('createWebhookEndpoint', { body: { url: 'http://127.0.0.1:9/lost-answer', events: ['novel.finished'] } });

  const attempts = proxy.exchanges.filter((exchange) => exchange.method === 'POST' && exchange.path === '/platform/v1/webhook-endpoints');
  // The service created it and answered 201; the answer was lost; the retry got the stored one.
  expect(attempts.map(({ status, answerLost, replayed }) => ({ status, answerLost, replayed }))).toEqual([
    { status: 201, answerLost: true, replayed: false },
    { status: 201, answerLost: undefined, replayed: true },
  ]);
  expect(attempts[1]!.idempotencyKey).toBe(attempts[0]!.idempotencyKey);
  expect(retries.map((event) => event.reason)).toEqual(['network']);
  expect(created.status).toBe(201);
  expect(created.headers.get('idempotent-replayed')).toBe('true');
  expect(created.data.secret).toMatch(/^whsec_/);
  const endpoints = (await client.listWebhookEndpoints()).data;
  expect(endpoints).toHaveLength(before + 1);
  expect(endpoints.filter((endpoint) => endpoint.url === 'http://127.0.0.1:9/lost-answer').map((endpoint) => endpoint.id)).toEqual([created.data.id]);
}, 60_000);

test('an unreachable service is a ConnectionError naming the URL, after the bounded retries of an idempotent call', async () => {
  const closed = await RecordingProxy.start(service.origin);
  const origin = closed.origin;
  await closed.close();
  const client = sandboxClient(origin, credential, { retry: { maxRetries: 2, backoffMs: 50 } });
  const failure = await client.listCategories().catch((error: unknown) => error);
  expect(failure).toBeInstanceOf(ConnectionError);
  // The token request (a POST the SDK knows to be safe) is where it fails, after 3 attempts.
  expect((failure as ConnectionError).message).toContain(`POST ${origin}/platform/v1/oauth2/token failed: ECONNREFUSED (after 3 attempts)`);
});
