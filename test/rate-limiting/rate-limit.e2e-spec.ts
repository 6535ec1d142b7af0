import { bearer, startTestApp, type TestApp } from '../support/test-app.js';

const LIMITS = { RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '6', TOKEN_FAILURES_PER_MINUTE: '3' };
const PROTECTED = '/platform/v1/subscriber/s1/status';

let first: TestApp;
let second: TestApp;
beforeAll(async () => {
  first = await startTestApp(LIMITS);
  second = await startTestApp(LIMITS, first.databaseUrl);
});
afterAll(async () => {
  await first.close();
  await second.close();
});

test('a credential over its budget gets 429 rate_limited with Retry-After and RateLimit headers', async () => {
  const token = await first.token(await first.partner());
  const statuses: number[] = [];
  let refused;
  for (let i = 0; i < 9; i++) {
    const response = await first.inject({ method: 'GET', url: PROTECTED, headers: bearer(token) });
    statuses.push(response.statusCode);
    if (response.statusCode === 429) refused = response;
  }
  expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
  expect(statuses).toContain(429);
  expect(refused!.json()).toEqual({ error: 'rate_limited', error_description: expect.any(String) });
  expect(Number(refused!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  // The IETF fields: the policy's quota (the burst) and window (seconds of a full refill),
  // then what remains and the seconds until the bucket is full again.
  expect(refused!.headers['ratelimit-policy']).toBe('"credential";q=6;w=6');
  expect(refused!.headers['ratelimit']).toBe('"credential";r=0;t=6');
  // Not the superseded draft's separate fields.
  expect(refused!.headers['ratelimit-limit']).toBeUndefined();
  expect(refused!.headers['ratelimit-remaining']).toBeUndefined();
  expect(refused!.headers['ratelimit-reset']).toBeUndefined();
});

test('the budget is shared by replicas on one database', async () => {
  const credential = await first.partner();
  const token = await first.token(credential);
  const started = Date.now();
  const responses = await Promise.all(
    Array.from({ length: 30 }, (_, i) => (i % 2 ? first : second).inject({ method: 'GET', url: PROTECTED, headers: bearer(token) })),
  );
  const allowed = responses.filter((r) => r.statusCode === 200).length;
  const refilled = Math.ceil((Date.now() - started) / 1000);
  expect(allowed).toBeGreaterThanOrEqual(1);
  expect(allowed).toBeLessThanOrEqual(6 + refilled);
  expect(responses.filter((r) => r.statusCode === 429).length).toBe(30 - allowed);
});

test('failed token requests are limited per client id and source address, across replicas', async () => {
  const credential = await first.partner();
  const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: credential.client_id, client_secret: 'wrong' }).toString();
  const statuses = [];
  for (let i = 0; i < 6; i++) {
    const replica = i % 2 ? first : second;
    statuses.push(
      (
        await replica.inject({
          method: 'POST',
          url: '/platform/v1/oauth2/token',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: form,
        })
      ).statusCode,
    );
  }
  expect(statuses).toEqual([401, 401, 401, 429, 429, 429]);
});
