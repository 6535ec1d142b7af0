import { DataSource } from 'typeorm';
import { importCatalog, manifest, manifestNovel } from '../fixtures/catalog-fixture.js';
import { partnerClient } from '../fixtures/partner-client.js';
import { bearer, useTestApp } from '../support/test-app.js';

/**
 * ADR 0128: a partner's test clocks have a budget of advances and of the events they
 * write (429 with Retry-After beyond it, nothing written), and deleting a clock with
 * subscribers needs the scopes of the data it erases.
 */
const t = useTestApp({ WEBHOOK_WORKER: 'false' });
const NOVEL = 'budget-fifty';
const DAY = 24 * 3600 * 1000;
const T0 = new Date(Math.floor(Date.now() / DAY) * DAY + 10 * DAY + 12 * 3600 * 1000);
const at = (offsetMs: number) => new Date(T0.getTime() + offsetMs).toISOString();

beforeAll(async () => {
  await importCatalog(t, manifest([manifestNovel(NOVEL, { chapters: 50 })]), 'sandbox');
});

async function sandboxPartner() {
  const client = await partnerClient(t, { environment: 'sandbox' });
  const platform = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, payload?: object, token = client.token) =>
    t.inject({ method, url: `/platform/v1${path}`, headers: bearer(token), ...(payload && { payload }) });
  expect((await platform('POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/hooks', events: ['chapter.unlocked'] })).statusCode).toBe(201);
  return { client, platform };
}
type Partner = Awaited<ReturnType<typeof sandboxPartner>>;

async function clockWithReaders(p: Partner, readers: number): Promise<string> {
  const created = await p.platform('POST', '/test-clocks', { frozen_time: at(0) });
  expect(created.statusCode).toBe(201);
  const id: string = created.json().id;
  for (let i = 0; i < readers; i++) {
    const subscriberId = `${id.slice(0, 8)}-reader-${i}`;
    expect((await p.platform('PUT', `/test-clocks/${id}/subscribers/${subscriberId}`)).statusCode).toBe(200);
    await p.client.entitle(subscriberId);
    expect((await p.client.call('POST', `/subscribers/${subscriberId}/novels`, { novel_id: NOVEL })).statusCode).toBe(201);
  }
  return id;
}

const advance = (p: Partner, clockId: string, frozenTime: string) => p.platform('POST', `/test-clocks/${clockId}/advance`, { frozen_time: frozenTime });
const eventCount = async (p: Partner) =>
  Number((await t.app.get(DataSource).query(`SELECT count(*) AS n FROM webhook_events WHERE partner_id = $1`, [p.client.partnerId]))[0].n);

it('allows 20 clock advances at once per partner, then 429 with Retry-After, the clock unmoved', async () => {
  const p = await sandboxPartner();
  const clockId = await clockWithReaders(p, 0);
  for (let hour = 1; hour <= 20; hour++) expect((await advance(p, clockId, at(hour * 3600 * 1000))).statusCode).toBe(200);
  const refused = await advance(p, clockId, at(21 * 3600 * 1000));
  expect([refused.statusCode, refused.json().error]).toEqual([429, 'rate_limited']);
  expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect((await p.platform('GET', `/test-clocks/${clockId}`)).json().frozen_time).toBe(at(20 * 3600 * 1000));
  // The same instant again moves nothing and spends nothing; another partner has its own budget.
  expect((await advance(p, clockId, at(20 * 3600 * 1000))).statusCode).toBe(200);
  const other = await sandboxPartner();
  expect((await advance(other, await clockWithReaders(other, 0), at(3600 * 1000))).statusCode).toBe(200);
});

it('allows 1 000 events an hour of advances per partner: beyond, 429 and none written; one advance at most 1 000', async () => {
  const p = await sandboxPartner();
  // 49 chapters after the first, one a day: 11 readers write 539 events in 60 days.
  const first = await clockWithReaders(p, 11);
  const second = await clockWithReaders(p, 11);
  expect((await advance(p, first, at(60 * DAY))).statusCode).toBe(200);
  expect(await eventCount(p)).toBe(539);

  const refused = await advance(p, second, at(60 * DAY));
  expect([refused.statusCode, refused.json().error]).toEqual([429, 'rate_limited']);
  // 78 events missing at 1 000 an hour: 281 s, less what refilled since the first advance.
  expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(281);
  expect(Number(refused.headers['retry-after'])).toBeGreaterThan(200);
  expect(await eventCount(p)).toBe(539);
  expect((await p.platform('GET', `/test-clocks/${second}`)).json().frozen_time).toBe(at(0));
  // A shorter advance fits what is left: 11 readers × 41 chapters = 451.
  expect((await advance(p, second, at(41 * DAY))).statusCode).toBe(200);
  expect(await eventCount(p)).toBe(539 + 451);

  const big = await sandboxPartner();
  const crowded = await clockWithReaders(big, 21);
  const tooMany = await advance(big, crowded, at(60 * DAY));
  expect([tooMany.statusCode, tooMany.json().error]).toEqual([400, 'invalid_request']);
  expect(await eventCount(big)).toBe(0);
});

it("deleting a clock with subscribers needs the scopes of the data it erases; an empty one the clocks' scope", async () => {
  const p = await sandboxPartner();
  const narrow = await partnerClient(t, { environment: 'sandbox', partnerId: p.client.partnerId, scopes: ['platform:entitlements:write'] });
  const withReader = await clockWithReaders(p, 1);
  const refused = await p.platform('DELETE', `/test-clocks/${withReader}`, undefined, narrow.token);
  expect([refused.statusCode, refused.json().error]).toEqual([403, 'insufficient_scope']);
  expect(refused.json().error_description).toContain('textapp:progress:write, audioapp:playback:write');
  expect((await p.platform('GET', `/test-clocks/${withReader}`)).statusCode).toBe(200);

  const empty = await clockWithReaders(p, 0);
  expect((await p.platform('DELETE', `/test-clocks/${empty}`, undefined, narrow.token)).statusCode).toBe(204);
  expect((await p.platform('DELETE', `/test-clocks/${withReader}`)).statusCode).toBe(204);
});
