import { NETWORK_BUDGET_MULTIPLE } from '../../src/modules/rate-limiting/index.js';
import { startTestApp, useTestApp, type TestApp } from '../support/test-app.js';

/**
 * A site is usually given an IPv6 /48, 65 536 /64s: spreading failures over its /64s must
 * not multiply the per-address budgets by as many (docs/limits.md, "Source addresses").
 */
const t = useTestApp();
const BUDGET = 3;
let limited: TestApp;

beforeAll(async () => {
  limited = await startTestApp({ TOKEN_FAILURES_PER_MINUTE: String(BUDGET), UNAUTHENTICATED_RPS: '1', UNAUTHENTICATED_BURST: String(BUDGET) }, t.databaseUrl);
});
afterAll(() => limited?.close());

/**
 * The status of each request, sent from a new /64 of the /48 `network` every BUDGET
 * requests. Each test has its own /48: failed token requests spend the unauthenticated
 * budget too.
 */
async function acrossSubnets(network: string, send: (remoteAddress: string) => Promise<number>, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) statuses.push(await send(`${network}:${Math.floor(i / BUDGET).toString(16)}::1`));
  return statuses;
}

const networkBudget = BUDGET * NETWORK_BUDGET_MULTIPLE;

it('refuses failed token requests from one /48 beyond its budget, whichever /64 they come from', async () => {
  const owner = await limited.partner();
  const statuses = await acrossSubnets(
    '2001:db8:77',
    async (remoteAddress) =>
      (
        await limited.inject({
          method: 'POST',
          url: '/platform/v1/oauth2/token',
          remoteAddress,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: `grant_type=client_credentials&client_id=${owner.client_id}&client_secret=wrong`,
        })
      ).statusCode,
    3 * networkBudget,
  );
  // Without the /48 budget every /64 would fail BUDGET times: 3 × networkBudget 401s. With
  // it, the /48's budget and the little it refills meanwhile (1/60 of it a second), then 429s.
  const failures = statuses.filter((status) => status === 401).length;
  expect(failures).toBeGreaterThanOrEqual(networkBudget);
  expect(failures).toBeLessThan(1.5 * networkBudget);
  // Another /48 has its own budget.
  const elsewhere = await limited.inject({
    method: 'POST',
    url: '/platform/v1/oauth2/token',
    remoteAddress: '2001:db8:78::1',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: `grant_type=client_credentials&client_id=${owner.client_id}&client_secret=wrong`,
  });
  expect(elsewhere.statusCode).toBe(401);
});

it('refuses unauthenticated requests from one /48 beyond its budget, whichever /64 they come from', async () => {
  const statuses = await acrossSubnets(
    '2001:db8:79',
    async (remoteAddress) => (await limited.inject({ method: 'GET', url: '/platform/v1/billing-usage?product=textapp', remoteAddress })).statusCode,
    4 * networkBudget,
  );
  // Without the /48 budget: 4 × networkBudget 401s. With it, the /48's burst and what it
  // refills meanwhile (NETWORK_BUDGET_MULTIPLE a second).
  const failures = statuses.filter((status) => status === 401).length;
  expect(failures).toBeGreaterThanOrEqual(networkBudget);
  expect(failures).toBeLessThan(2 * networkBudget);
  expect(statuses.filter((status) => status === 429).length).toBe(4 * networkBudget - failures);
});
