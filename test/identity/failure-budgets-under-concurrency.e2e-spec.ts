import { bearer, startTestApp, type TestApp } from '../support/test-app.js';

/**
 * DECISIONS 27: the budgets that failed authentications spend hold under concurrency. A
 * burst of simultaneous requests gets no more through than the budget allows (each takes
 * its unit before it is checked, and gives it back on success), and every address of one
 * IPv6 /64 shares one budget.
 */
let t: TestApp;
beforeAll(async () => {
  // The defaults of DECISIONS 19 and 27, not the test app's generous ones.
  t = await startTestApp({ TOKEN_FAILURES_PER_MINUTE: '10', UNAUTHENTICATED_RPS: '20', UNAUTHENTICATED_BURST: '100' });
});
afterAll(() => t.close());

const tokenRequest = (clientId: string, secret: string, remoteAddress: string) =>
  t.inject({
    method: 'POST',
    url: '/platform/v1/oauth2/token',
    remoteAddress,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }).toString(),
  });

const countStatuses = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((counts, status) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {});

it('lets 10 of 300 simultaneous wrong secrets for one client id from one address through, and refuses the rest with 429', async () => {
  const owner = await t.partner();
  const responses = await Promise.all(Array.from({ length: 300 }, () => tokenRequest(owner.client_id, 'wrong-secret', '10.20.0.1')));
  expect(countStatuses(responses.map((response) => response.statusCode))).toEqual({ 401: 10, 429: 290 });
  // The owner, from another address, is served.
  expect((await tokenRequest(owner.client_id, owner.client_secret, '10.20.0.2')).statusCode).toBe(200);
});

it('lets 100 of 1 500 simultaneous unknown client ids from one address through, and refuses the rest with 429', async () => {
  const responses = await Promise.all(Array.from({ length: 1500 }, (_, i) => tokenRequest(`live_unknown_${i}`, 'guess', '10.21.0.1')));
  const counts = countStatuses(responses.map((response) => response.statusCode));
  // The bucket refills 20 a second while the burst is being answered.
  expect(counts[401]).toBeGreaterThanOrEqual(100);
  expect(counts[401]).toBeLessThanOrEqual(100 + 20 * 5);
  expect(counts[401] + counts[429]).toBe(1500);
});

it('lets no more forged bearer tokens through at once than the address budget holds', async () => {
  const forged = bearer('eyJhbGciOiJFUzI1NiIsImtpZCI6ImZvcmdlZCJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl');
  const responses = await Promise.all(
    Array.from({ length: 600 }, () => t.inject({ method: 'GET', url: '/v1/categories', remoteAddress: '10.22.0.1', headers: forged })),
  );
  const counts = countStatuses(responses.map((response) => response.statusCode));
  expect(counts[401]).toBeGreaterThanOrEqual(100);
  expect(counts[401]).toBeLessThanOrEqual(100 + 20 * 5);
  expect(counts[401] + counts[429]).toBe(600);
});

it('gives the unit back on success: an address with many good requests keeps its whole budget for failures', async () => {
  const token = await t.token(await t.partner());
  for (let i = 0; i < 150; i++) {
    expect((await t.inject({ method: 'GET', url: '/v1/categories', remoteAddress: '10.23.0.1', headers: bearer(token) })).statusCode).toBe(200);
  }
  const credential = await t.partner();
  for (let i = 0; i < 30; i++) expect((await tokenRequest(credential.client_id, credential.client_secret, '10.23.0.1')).statusCode).toBe(200);
  const forged = await t.inject({ method: 'GET', url: '/v1/categories', remoteAddress: '10.23.0.1', headers: bearer('a.b.c') });
  expect(forged.headers['ratelimit']).toBeUndefined();
  expect(forged.statusCode).toBe(401);
});

it('has every address of one IPv6 /64 share a budget, and another /64 its own', async () => {
  const owner = await t.partner();
  const statuses: number[] = [];
  for (let i = 0; i < 12; i++) statuses.push((await tokenRequest(owner.client_id, 'wrong', `2001:db8:77:1::${(i + 1).toString(16)}`)).statusCode);
  expect(countStatuses(statuses)).toEqual({ 401: 10, 429: 2 });
  expect((await tokenRequest(owner.client_id, 'wrong', '2001:db8:77:2::1')).statusCode).toBe(401);
});
