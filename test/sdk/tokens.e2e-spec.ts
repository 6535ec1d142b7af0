import { join } from 'node:path';
import { ApiError, type RetryEvent } from '../../sdk/src/index.js';
import { runNode } from '../support/processes.js';
import { createCredential, RecordingProxy, sandboxClient, serviceEnv, startService, type Credential, type Service } from './sdk-test-kit.js';

/**
 * The SDK's token against the real token endpoint and the real verification of two service
 * processes on one database: `now` runs on the real clock, `later` 12 minutes ahead (a
 * preloaded clock shift), past the expiry of any token `now` issued. A proxy in front
 * switches between them and counts what the SDK sends.
 */
const TWELVE_MINUTES = 12 * 60_000;
let now: Service;
let later: Service;
let proxy: RecordingProxy;
let credential: Credential;

beforeAll(async () => {
  // One issuer for both: tokens name it, and each process accepts only its own.
  const env = await serviceEnv({ PUBLIC_BASE_URL: 'http://localhost:3000' });
  // `now` first: the signing key the first process creates must be active on the real clock.
  now = await startService(env);
  later = await startService({
    ...env,
    WEBHOOK_WORKER: 'false',
    CLOCK_SHIFT_MS: String(TWELVE_MINUTES),
    NODE_OPTIONS: `--import=${join(process.cwd(), 'test/sdk/shifted-clock.mjs')}`,
  });
  credential = await createCredential(now.env);
  proxy = await RecordingProxy.start(now.origin);
}, 90_000);

afterAll(async () => {
  await proxy?.close();
  await Promise.all([now?.stop(), later?.stop()]);
});

const tokenRequests = () => proxy.count((exchange) => exchange.path === '/platform/v1/oauth2/token');
const bearerOf = (path: string) => new Set(proxy.exchanges.filter((exchange) => exchange.path === path).map((exchange) => exchange.authorization));

test('one token for many calls, renewed before expiry and again once after the service refuses it as expired', async () => {
  let offset = 0;
  const retries: RetryEvent[] = [];
  const client = sandboxClient(proxy.origin, credential, { clock: () => Date.now() + offset, onRetry: (event) => retries.push(event) });
  const burst = () => Promise.all(Array.from({ length: 20 }, () => client.listCategories()));

  // Twenty calls at once, then twenty more: one token request.
  await burst();
  await burst();
  expect(tokenRequests()).toBe(1);

  // 9.5 minutes on: the token has 30 s left, under the 60 s margin. One renewal for all, before the service would refuse it.
  offset = 9.5 * 60_000;
  await burst();
  expect(tokenRequests()).toBe(2);
  expect(proxy.count((exchange) => exchange.status === 401)).toBe(0);

  // The service's clock passes the expiry while ours does not (a clock behind, or a token cut short): every call is
  // refused once as invalid_token, one new token serves them all, and each call succeeds on its second try.
  proxy.upstream = later.origin;
  const results = await burst();
  expect(results).toHaveLength(20);
  expect(tokenRequests()).toBe(3);
  expect(proxy.count((exchange) => exchange.status === 401 && exchange.path === '/sandbox/v1/categories')).toBe(20);
  expect(retries.filter((event) => event.reason === 'token_refresh')).toHaveLength(20);
  expect(bearerOf('/sandbox/v1/categories').size).toBe(3);

  // And once more: with the new token, no refusal.
  const refusals = proxy.count((exchange) => exchange.status === 401);
  await client.listCategories();
  expect(proxy.count((exchange) => exchange.status === 401)).toBe(refusals);
}, 60_000);

test('after a revocation: a new token is asked for once, and its refusal is the ApiError, not a loop', async () => {
  const revoked = await createCredential(now.env);
  proxy.upstream = now.origin;
  const client = sandboxClient(proxy.origin, revoked);
  await client.listCategories();
  const cli = runNode('dist/src/cli.js', ['credential:revoke', '--client-id', revoked.client_id], now.env);
  expect(await cli.exit()).toBe(0);

  const before = tokenRequests();
  const error = await client.listCategories().catch((failure: unknown) => failure);
  expect(error).toBeInstanceOf(ApiError);
  expect(error).toMatchObject({ status: 401, error: 'invalid_client', operationId: 'issuePlatformToken', requestId: expect.any(String) });
  expect(tokenRequests()).toBe(before + 1);
}, 60_000);
