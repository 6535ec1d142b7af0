import { NestFactory } from '@nestjs/core';
import pg from 'pg';
import { AppModule } from '../../src/app.module.js';
import { loadConfig } from '../../src/config/app-config.js';
import { HttpMetrics } from '../../src/observability/metrics.js';
import { PartnerCredentialsService } from '../../src/modules/identity/index.js';
import { ServerSecrets } from '../../src/shared/crypto/server-secrets.js';
import { bearer, startTestApp, type TestApp } from '../support/test-app.js';
import { partnerWithEndpoint, publishFinished, sleep, tenantOf, WebhookReceiver } from './webhook-test-kit.js';

const ENDPOINTS = '/platform/v1/webhook-endpoints';
const RECEIVER = 'http://127.0.0.1:9/hook';

describe('webhook endpoint management', () => {
  let app: TestApp;
  let db: pg.Client;

  beforeAll(async () => {
    // Management only: nothing here needs deliveries to be attempted.
    // Live endpoints on 127.0.0.1 over http: the URL rules are tested apart.
    app = await startTestApp({ WEBHOOK_WORKER: 'false', WEBHOOK_ALLOW_INSECURE_URLS: 'true' });
    db = new pg.Client({ connectionString: app.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await app?.close();
    await db?.end();
  });

  const call = (token: string, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
    app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });

  it('creates an endpoint and shows its secret once; the secret is stored sealed', async () => {
    const { token, endpoint } = await partnerWithEndpoint(app, RECEIVER);
    expect(endpoint).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: RECEIVER,
      events: ['novel.finished'],
      created_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });

    const list = await call(token, 'GET', ENDPOINTS);
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual({ data: [{ id: endpoint.id, url: RECEIVER, events: ['novel.finished'], created_at: endpoint.created_at }] });
    expect(list.body).not.toContain('whsec_');

    const { rows } = await db.query(`SELECT sealed_secret FROM webhook_endpoint_secrets WHERE endpoint_id = $1`, [endpoint.id]);
    expect(rows).toHaveLength(1);
    expect(rows[0].sealed_secret).not.toContain(endpoint.secret.slice('whsec_'.length, 20));
    expect(app.app.get(ServerSecrets).unseal(rows[0].sealed_secret)).toBe(endpoint.secret);
  });

  it('lists each event type once', async () => {
    const { token } = await partnerWithEndpoint(app, RECEIVER);
    const created = await call(token, 'POST', ENDPOINTS, { url: RECEIVER, events: ['novel.finished', 'novel.finished'] });
    expect(created.statusCode).toBe(201);
    expect(created.json().events).toEqual(['novel.finished']);
  });

  it.each([
    [{ events: ['novel.finished'] }, /url is required/],
    [{ url: 42, events: ['novel.finished'] }, /url must be a string/],
    [{ url: 'not a url', events: ['novel.finished'] }, /absolute URL/],
    [{ url: 'ftp://127.0.0.1/hook', events: ['novel.finished'] }, /http or https/],
    [{ url: 'https://example.com/'.padEnd(2049, 'x'), events: ['novel.finished'] }, /at most 2048 characters/],
    [{ url: RECEIVER }, /events is required/],
    [{ url: RECEIVER, events: 'novel.finished' }, /events must be an array/],
    [{ url: RECEIVER, events: [] }, /at least one event type/],
    [{ url: RECEIVER, events: ['novel.started'] }, /events may contain only novel.finished, chapter.unlocked/],
    [{ url: RECEIVER, events: ['novel.finished'], secret: 'mine' }, /secret/],
  ])('refuses the body %j with 400 invalid_request', async (payload, description) => {
    const { token } = await partnerWithEndpoint(app, RECEIVER);
    const response = await call(token, 'POST', ENDPOINTS, payload);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(description) });
  });

  it('needs the platform:webhooks:manage scope on every route', async () => {
    const credential = await app.partner({ scopes: ['platform:entitlements:write'] });
    const token = await app.token(credential);
    const id = '00000000-0000-4000-8000-000000000000';
    for (const [method, url] of [
      ['POST', ENDPOINTS],
      ['GET', ENDPOINTS],
      ['DELETE', `${ENDPOINTS}/${id}`],
      ['POST', `${ENDPOINTS}/${id}/rotate-secret`],
      ['GET', `${ENDPOINTS}/${id}/deliveries`],
      ['POST', `/platform/v1/webhook-events/${id}/redeliver`],
    ] as const) {
      const response = await call(token, method, url, method === 'POST' && url === ENDPOINTS ? { url: RECEIVER, events: ['novel.finished'] } : undefined);
      expect({ route: `${method} ${url}`, status: response.statusCode, error: response.json().error }).toEqual({
        route: `${method} ${url}`,
        status: 403,
        error: 'insufficient_scope',
      });
    }
  });

  it('deletes an endpoint', async () => {
    const { token, endpoint } = await partnerWithEndpoint(app, RECEIVER);
    const deleted = await call(token, 'DELETE', `${ENDPOINTS}/${endpoint.id}`);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect((await call(token, 'GET', ENDPOINTS)).json()).toEqual({ data: [] });
    const again = await call(token, 'DELETE', `${ENDPOINTS}/${endpoint.id}`);
    expect(again.statusCode).toBe(404);
    expect(again.json().error).toBe('not_found');
  });

  it('rotates a secret: the new one is shown once and the old one keeps signing for 24 hours', async () => {
    const { token, endpoint } = await partnerWithEndpoint(app, RECEIVER);
    const rotated = await call(token, 'POST', `${ENDPOINTS}/${endpoint.id}/rotate-secret`);
    expect(rotated.statusCode).toBe(200);
    const body = rotated.json();
    expect(body).toMatchObject({ id: endpoint.id, url: RECEIVER, events: ['novel.finished'], secret: expect.stringMatching(/^whsec_/) });
    expect(body.secret).not.toBe(endpoint.secret);
    const overlapEndsIn = Date.parse(body.previous_secret_expires_at) - Date.now();
    expect(Math.abs(overlapEndsIn - 24 * 3600 * 1000)).toBeLessThan(60_000);

    // A second rotation retires the second secret; the first keeps its own end.
    const second = (await call(token, 'POST', `${ENDPOINTS}/${endpoint.id}/rotate-secret`)).json();
    const { rows } = await db.query(`SELECT sealed_secret, expires_at FROM webhook_endpoint_secrets WHERE endpoint_id = $1 ORDER BY id`, [endpoint.id]);
    const secrets = app.app.get(ServerSecrets);
    expect(rows.map((row) => [secrets.unseal(row.sealed_secret), row.expires_at?.toISOString() ?? null])).toEqual([
      [endpoint.secret, body.previous_secret_expires_at],
      [body.secret, second.previous_secret_expires_at],
      [second.secret, null],
    ]);
  });

  it('validates the deliveries query', async () => {
    const { token, endpoint } = await partnerWithEndpoint(app, RECEIVER);
    expect((await call(token, 'GET', `${ENDPOINTS}/${endpoint.id}/deliveries`)).json()).toEqual({ data: [] });
    expect((await call(token, 'GET', `${ENDPOINTS}/${endpoint.id}/deliveries?status=failed&limit=10`)).statusCode).toBe(200);
    for (const query of ['status=lost', 'limit=0', 'limit=101', 'limit=ten', 'page=2']) {
      const response = await call(token, 'GET', `${ENDPOINTS}/${endpoint.id}/deliveries?${query}`);
      expect({ query, status: response.statusCode, error: response.json().error }).toEqual({ query, status: 400, error: 'invalid_request' });
    }
  });

  it("lists a delivery's state with the event", async () => {
    const { token, endpoint, tenant } = await partnerWithEndpoint(app, RECEIVER);
    const event = await publishFinished(app, tenant);
    const response = await call(token, 'GET', `${ENDPOINTS}/${endpoint.id}/deliveries?status=pending`);
    expect(response.json()).toEqual({
      data: [
        {
          event_id: event.event_id,
          event_type: 'novel.finished',
          status: 'pending',
          next_attempt_at: expect.any(String),
          created_at: expect.any(String),
          attempts: [],
        },
      ],
    });
    expect((await call(token, 'GET', `${ENDPOINTS}/${endpoint.id}/deliveries?status=failed`)).json()).toEqual({ data: [] });
  });

  it('answers 404 for ids that are not UUIDs', async () => {
    const { token } = await partnerWithEndpoint(app, RECEIVER);
    for (const [method, url] of [
      ['DELETE', `${ENDPOINTS}/42`],
      ['POST', `${ENDPOINTS}/42/rotate-secret`],
      ['GET', `${ENDPOINTS}/not-an-id/deliveries`],
      ['POST', '/platform/v1/webhook-events/42/redeliver'],
    ] as const) {
      const response = await call(token, method, url);
      expect({ url, status: response.statusCode, error: response.json().error }).toEqual({ url, status: 404, error: 'not_found' });
    }
  });

  it("never shows or touches another partner's endpoints and events", async () => {
    const a = await partnerWithEndpoint(app, RECEIVER);
    const event = await publishFinished(app, a.tenant);
    const b = await partnerWithEndpoint(app, 'http://127.0.0.1:9/b');

    expect((await call(b.token, 'GET', ENDPOINTS)).json().data.map((e: { id: string }) => e.id)).toEqual([b.endpoint.id]);
    for (const [method, url] of [
      ['DELETE', `${ENDPOINTS}/${a.endpoint.id}`],
      ['POST', `${ENDPOINTS}/${a.endpoint.id}/rotate-secret`],
      ['GET', `${ENDPOINTS}/${a.endpoint.id}/deliveries`],
      ['POST', `/platform/v1/webhook-events/${event.event_id}/redeliver`],
    ] as const) {
      const response = await call(b.token, method, url);
      expect({ url, status: response.statusCode, error: response.json().error }).toEqual({ url, status: 404, error: 'not_found' });
    }

    const own = await call(a.token, 'GET', ENDPOINTS);
    expect(own.json().data.map((e: { id: string }) => e.id)).toEqual([a.endpoint.id]);
    const secrets = await db.query(`SELECT count(*)::int AS n FROM webhook_endpoint_secrets WHERE endpoint_id = $1`, [a.endpoint.id]);
    expect(secrets.rows[0].n).toBe(1);
    const deliveries = await db.query(`SELECT endpoint_id FROM webhook_deliveries WHERE event_id = $1`, [event.event_id]);
    expect(deliveries.rows).toEqual([{ endpoint_id: a.endpoint.id }]);
  });

  it("keeps a partner's live and sandbox endpoints apart", async () => {
    const live = await partnerWithEndpoint(app, RECEIVER);
    const sandboxCredential = await app.app
      .get(PartnerCredentialsService)
      .createCredential(live.credential.partner_id, ['platform:webhooks:manage'], 'sandbox');
    const sandboxToken = await app.token(sandboxCredential);

    expect((await call(sandboxToken, 'GET', ENDPOINTS)).json()).toEqual({ data: [] });
    expect((await call(sandboxToken, 'DELETE', `${ENDPOINTS}/${live.endpoint.id}`)).statusCode).toBe(404);
    const liveEvent = await publishFinished(app, live.tenant);
    expect((await call(sandboxToken, 'POST', `/platform/v1/webhook-events/${liveEvent.event_id}/redeliver`)).statusCode).toBe(404);
    const sandboxEvent = await publishFinished(app, tenantOf(sandboxCredential));
    const { rows } = await db.query(`SELECT 1 FROM webhook_deliveries WHERE event_id = $1`, [sandboxEvent.event_id]);
    expect(rows).toHaveLength(0);
  });

  it('answers 409 to a redelivery that no endpoint would receive', async () => {
    const credential = await app.partner({ scopes: ['platform:webhooks:manage'] });
    const token = await app.token(credential);
    const event = await publishFinished(app, tenantOf(credential));
    const response = await call(token, 'POST', `/platform/v1/webhook-events/${event.event_id}/redeliver`);
    expect(response.statusCode).toBe(409);
    expect(response.json()).toEqual({ error: 'conflict', error_description: expect.stringMatching(/No webhook endpoint subscribes to novel.finished/) });
  });

  it('marks every route as an extension in the OpenAPI document', async () => {
    const document = (await app.inject({ method: 'GET', url: '/docs/openapi.json' })).json();
    const operations = Object.entries(document.paths as Record<string, Record<string, { tags: string[]; 'x-extension'?: boolean }>>)
      .filter(([path]) => /webhook/.test(path))
      .flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ route: `${method} ${path}`, operation })));
    expect(operations).toHaveLength(6);
    for (const { route, operation } of operations) {
      expect({ route, extension: operation['x-extension'], tags: operation.tags }).toEqual({
        route,
        extension: true,
        tags: expect.arrayContaining(['Platform: webhooks', 'Extensions']),
      });
    }
  });

  it('delivers only from service processes that mount the platform surface with the worker on', async () => {
    const receiver = await WebhookReceiver.start();
    const fastPolls = { WEBHOOK_POLL_INTERVAL_MS: '20', WEBHOOK_ALLOW_INSECURE_URLS: 'true' };
    // A reading-only service, and the modules built the way the CLI builds them (no HTTP server).
    const readingOnly = await startTestApp({ ...fastPolls, SERVICES: 'reading,sandbox,kids' }, app.databaseUrl);
    const config = loadConfig({ ...fastPolls, NODE_ENV: 'test', SERVER_SECRET: app.config.serverSecret.toString() });
    const cli = await NestFactory.createApplicationContext(AppModule.forRoot({ config, databaseUrl: app.databaseUrl, metrics: new HttpMetrics() }), {
      logger: false,
    });
    try {
      const { tenant, endpoint, token } = await partnerWithEndpoint(app, receiver.url());
      await publishFinished(app, tenant);
      await sleep(500);
      expect(receiver.received).toHaveLength(0);
      const deliveries = (await call(token, 'GET', `${ENDPOINTS}/${endpoint.id}/deliveries`)).json().data;
      expect(deliveries.map((d: { status: string; attempts: unknown[] }) => [d.status, d.attempts.length])).toEqual([['pending', 0]]);
    } finally {
      await cli.close();
      await readingOnly.close();
      await receiver.close();
    }
  });
});
