import { SchedulerRegistry } from '@nestjs/schedule';
import { DataSource } from 'typeorm';
import type { IssuedCredential } from '../../src/modules/identity/index.js';
import { IdleBucketPurge } from '../../src/modules/rate-limiting/index.js';
import { bearer, startTestApp, useTestApp, type TestApp } from '../support/test-app.js';

/**
 * One partner, or anyone who knows a client id (every token carries one), must not be
 * able to degrade another partner's service (DECISIONS 27), and no input may reach the
 * database in a form it refuses.
 */
const t = useTestApp();

const TOKEN = '/platform/v1/oauth2/token';

function tokenRequest(app: TestApp, clientId: string, secret: string, from: { remoteAddress?: string; forwardedFor?: string } = {}) {
  return app.inject({
    method: 'POST',
    url: TOKEN,
    remoteAddress: from.remoteAddress,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(from.forwardedFor ? { 'x-forwarded-for': from.forwardedFor } : {}) },
    payload: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }).toString(),
  });
}

describe('token endpoint: wrong secrets cannot lock out the owner', () => {
  let limited: TestApp;
  let owner: IssuedCredential;
  beforeAll(async () => {
    // A small credential budget, as before the fix the guesses spent it.
    limited = await startTestApp({ RATE_LIMIT_RPS: '1', RATE_LIMIT_BURST: '5', TOKEN_FAILURES_PER_MINUTE: '3' }, t.databaseUrl);
    owner = await limited.partner();
  });
  afterAll(() => limited.close());

  it("answers the owner's correct requests while others guess its secret from four addresses", async () => {
    const attackers = ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4'];
    const statuses: number[] = [];
    for (let round = 0; round < 5; round++) {
      for (const remoteAddress of attackers) statuses.push((await tokenRequest(limited, owner.client_id, 'wrong-secret', { remoteAddress })).statusCode);
    }
    // Three failures per address, then the address is refused for this client id.
    expect(statuses.filter((status) => status === 401)).toHaveLength(12);
    expect(statuses.filter((status) => status === 429)).toHaveLength(8);

    for (let i = 0; i < 5; i++) {
      const response = await tokenRequest(limited, owner.client_id, owner.client_secret, { remoteAddress: '10.0.0.9' });
      expect(response.statusCode).toBe(200);
    }
  });

  it('refuses a guessing address even the right secret, with Retry-After, and only for that client id', async () => {
    const other = await limited.partner();
    const remoteAddress = '10.0.1.1';
    for (let i = 0; i < 3; i++) expect((await tokenRequest(limited, other.client_id, 'wrong', { remoteAddress })).statusCode).toBe(401);

    const refused = await tokenRequest(limited, other.client_id, other.client_secret, { remoteAddress });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error).toBe('rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    const anotherClient = await limited.partner();
    expect((await tokenRequest(limited, anotherClient.client_id, anotherClient.client_secret, { remoteAddress })).statusCode).toBe(200);
  });

  it('believes X-Forwarded-For only when TRUST_PROXY names the proxy', async () => {
    const target = await limited.partner();
    // Not trusted (the default): the forwarded address is ignored, the socket's counts.
    for (let i = 0; i < 3; i++) {
      await tokenRequest(limited, target.client_id, 'wrong', { remoteAddress: '10.0.2.1', forwardedFor: `203.0.113.${i}` });
    }
    expect((await tokenRequest(limited, target.client_id, 'wrong', { remoteAddress: '10.0.2.1', forwardedFor: '203.0.113.99' })).statusCode).toBe(429);

    const behindProxy = await startTestApp({ TOKEN_FAILURES_PER_MINUTE: '3', TRUST_PROXY: '10.0.3.0/24' }, t.databaseUrl);
    try {
      const client = await behindProxy.partner();
      const viaProxy = (forwardedFor: string, secret = 'wrong') =>
        tokenRequest(behindProxy, client.client_id, secret, { remoteAddress: '10.0.3.7', forwardedFor });
      for (let i = 0; i < 3; i++) expect((await viaProxy('198.51.100.1')).statusCode).toBe(401);
      expect((await viaProxy('198.51.100.1')).statusCode).toBe(429);
      // Another client behind the same load balancer is another address.
      expect((await viaProxy('198.51.100.2')).statusCode).toBe(401);
      expect((await viaProxy('198.51.100.3', client.client_secret)).statusCode).toBe(200);
    } finally {
      await behindProxy.close();
    }
  });
});

describe('requests with a missing or invalid bearer token', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await startTestApp({ UNAUTHENTICATED_RPS: '1', UNAUTHENTICATED_BURST: '3' }, t.databaseUrl);
  });
  afterAll(() => limited.close());

  const status = (remoteAddress: string, headers: Record<string, string> = {}) =>
    limited.inject({ method: 'GET', url: '/platform/v1/billing-usage?product=textapp', remoteAddress, headers });

  it('are limited per source address, before any verification', async () => {
    const forged = bearer('eyJhbGciOiJFUzI1NiIsImtpZCI6ImZvcmdlZCJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl');
    expect((await status('10.1.0.1', forged)).statusCode).toBe(401);
    expect((await status('10.1.0.1')).statusCode).toBe(401);
    expect((await status('10.1.0.1', forged)).statusCode).toBe(401);
    const refused = await status('10.1.0.1', forged);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error).toBe('rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    // Other addresses, public routes and valid tokens elsewhere are unaffected.
    expect((await status('10.1.0.2', forged)).statusCode).toBe(401);
    expect((await limited.inject({ method: 'GET', url: '/platform/v1/jwks', remoteAddress: '10.1.0.1' })).statusCode).toBe(200);
    const token = await limited.token(await limited.partner());
    expect((await status('10.1.0.3', bearer(token))).statusCode).toBe(200);
  });
  it('are counted with failed token requests, whatever client id each names', async () => {
    for (let i = 0; i < 3; i++) expect((await tokenRequest(limited, `live_unknown${i}`, 'guess', { remoteAddress: '10.1.1.1' })).statusCode).toBe(401);
    expect((await tokenRequest(limited, 'live_unknown9', 'guess', { remoteAddress: '10.1.1.1' })).statusCode).toBe(429);
    expect((await status('10.1.1.1')).statusCode).toBe(429);
    expect((await tokenRequest(limited, 'live_unknown9', 'guess', { remoteAddress: '10.1.1.2' })).statusCode).toBe(401);
  });
});

describe('rate-limit buckets', () => {
  it('are purged once idle, on a schedule', async () => {
    const db = t.app.get(DataSource);
    await db.query(
      `INSERT INTO rate_limit_buckets (key, tokens, refreshed_at, last_granted)
       VALUES ('token-failure:idle-client:10.9.0.1', 0, now() - interval '2 days', 1), ('token-failure:busy-client:10.9.0.1', 0, now(), 1)`,
    );
    const purge = t.app.get(IdleBucketPurge);
    expect(await purge.purge()).toBeGreaterThanOrEqual(1);
    const keys = (await db.query<{ key: string }[]>(`SELECT key FROM rate_limit_buckets WHERE key LIKE '%:10.9.0.1'`)).map((row) => row.key);
    expect(keys).toEqual(['token-failure:busy-client:10.9.0.1']);
    expect(t.app.get(SchedulerRegistry).getIntervals()).toContain('rate-limit-bucket-purge');
  });
});

describe('surfaces a process does not mount', () => {
  let platformOnly: TestApp;
  beforeAll(async () => {
    platformOnly = await startTestApp({ SERVICES: 'platform' }, t.databaseUrl);
  });
  afterAll(() => platformOnly.close());

  it.each(['/%73andbox/v1/novels', '/sandbox/v1/novels', '/%6bids/v1/jwks', '/kids/%761/jwks', '/%76%31/novels', '/media/novel/1.mp3?expires=1&signature=x'])(
    '%s answers 404 whatever its encoding',
    async (url) => {
      const response = await platformOnly.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({ error: 'not_found', error_description: expect.stringContaining('No endpoint answers') });
    },
  );

  it('still serves its own surface, encoded or not', async () => {
    expect((await platformOnly.inject({ method: 'GET', url: '/%70latform/v1/jwks' })).statusCode).toBe(200);
  });
});

describe('dates PostgreSQL cannot store', () => {
  let token: string;
  beforeAll(async () => {
    token = await t.token(await t.partner());
  });
  const get = (url: string) => t.inject({ method: 'GET', url, headers: bearer(token) });

  it.each([
    '/v1/analytics/engagement?period_start=0000-01-01&period_end=0000-01-01',
    '/v1/analytics/engagement?period_end=0000-01-31',
    '/kids/v1/engagement/summary?period_start=0000-01-01&period_end=0000-01-02',
    '/kids/v1/engagement/summary?period_start=9999-12-01&period_end=9999-12-31',
    '/platform/v1/billing-usage?product=textapp&period=0000-11',
  ])('%s → 400 invalid_request', async (url) => {
    const response = await get(url);
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('invalid_request');
  });

  it.each([
    '/v1/analytics/engagement?period_start=0001-01-01&period_end=0001-12-31',
    '/v1/analytics/engagement?period_start=9999-12-01&period_end=9999-12-31',
    '/kids/v1/engagement/summary?period_start=0001-01-01&period_end=0001-12-31',
    '/platform/v1/billing-usage?product=textapp&period=0001-01',
  ])('%s, at the edges of what is stored, answers 200', async (url) => {
    expect((await get(url)).statusCode).toBe(200);
  });
});

describe('answers that carry a secret', () => {
  it('are never stored by a cache (webhook endpoint creation and secret rotation)', async () => {
    const token = await t.token(await t.partner({ environment: 'sandbox' }));
    const created = await t.inject({
      method: 'POST',
      url: '/platform/v1/webhook-endpoints',
      headers: bearer(token),
      payload: { url: 'http://127.0.0.1:9/hook', events: ['novel.finished'] },
    });
    expect(created.statusCode).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    const rotated = await t.inject({ method: 'POST', url: `/platform/v1/webhook-endpoints/${created.json().id}/rotate-secret`, headers: bearer(token) });
    expect(rotated.statusCode).toBe(200);
    expect(rotated.headers['cache-control']).toBe('no-store');
  });
});
