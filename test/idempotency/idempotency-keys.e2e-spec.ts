import pg from 'pg';
import { IdempotencyService } from '../../src/modules/idempotency/application/idempotency.service.js';
import { IdempotencyKeyPurge } from '../../src/modules/idempotency/index.js';
import { msUntil } from '../support/replicas.js';
import { bearer, startTestApp, type TestApp } from '../support/test-app.js';
import { partnerWithEndpoint } from '../webhooks/webhook-test-kit.js';

/** Idempotency-Key (DECISIONS 30): replay, reuse, in flight, refused requests, key rules, tenants. */
let t: TestApp;
let db: pg.Client;
let token: string;
let partnerId: string;

beforeAll(async () => {
  // Deliveries are counted, not attempted; live endpoints on 127.0.0.1 over http.
  t = await startTestApp({ WEBHOOK_WORKER: 'false', WEBHOOK_ALLOW_INSECURE_URLS: 'true' });
  db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
  const credential = await t.partner();
  partnerId = credential.partner_id;
  token = await t.token(credential);
});
afterAll(async () => {
  await t?.close();
  await db?.end();
});

const ENTITLEMENTS = '/platform/v1/entitlements';
const ENDPOINTS = '/platform/v1/webhook-endpoints';
const RECEIVER = 'http://127.0.0.1:9/hook';

const send = (method: 'POST' | 'PUT' | 'DELETE', url: string, payload: object | undefined, key?: string, auth = token) =>
  t.inject({ method, url, headers: { ...bearer(auth), ...(key === undefined ? {} : { 'idempotency-key': key }) }, ...(payload ? { payload } : {}) });
const historyRows = async (subscriberId: string) =>
  (await db.query(`SELECT new_status FROM entitlement_history WHERE partner_id = $1 AND subscriber_id = $2 ORDER BY id`, [partnerId, subscriberId])).rows.map(
    (row: { new_status: string }) => row.new_status,
  );
const endpointCount = async (partner: string) =>
  Number((await db.query(`SELECT count(*) FROM webhook_endpoints WHERE partner_id = $1`, [partner])).rows[0].count);

describe('the same key and request again', () => {
  it('answers the stored answer byte for byte, marked Idempotent-Replayed, and applies nothing again', async () => {
    const active = { subscriber_id: 'replayed', product: 'textapp', status: 'active' };
    const first = await send('POST', ENTITLEMENTS, active, 'key-entitlement');
    expect(first.statusCode).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // Another change in between: a second processing of the keyed request would append "active" again.
    expect((await send('POST', ENTITLEMENTS, { ...active, status: 'suspended' })).statusCode).toBe(200);

    const again = await send('POST', ENTITLEMENTS, active, 'key-entitlement');
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.body).toBe(first.body);
    expect(await historyRows('replayed')).toEqual(['active', 'suspended']);
  });

  it('creates one webhook endpoint, and replays its 201 with Location and the secret shown', async () => {
    const { credential, token: manager } = await partnerWithEndpoint(t, RECEIVER);
    const body = { url: `${RECEIVER}/keyed`, events: ['novel.finished'] };
    const first = await send('POST', ENDPOINTS, body, 'create-endpoint', manager);
    const again = await send('POST', ENDPOINTS, body, 'create-endpoint', manager);
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.headers.location).toBe(first.headers.location);
    expect(again.body).toBe(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await endpointCount(credential.partner_id)).toBe(2);
  });

  it('replays a DELETE (204, empty) without deleting anything twice', async () => {
    const { token: manager, endpoint } = await partnerWithEndpoint(t, RECEIVER);
    const first = await send('DELETE', `${ENDPOINTS}/${endpoint.id}`, undefined, 'delete-endpoint', manager);
    const again = await send('DELETE', `${ENDPOINTS}/${endpoint.id}`, undefined, 'delete-endpoint', manager);
    expect(first.statusCode).toBe(204);
    expect(again.statusCode).toBe(204);
    expect(again.body).toBe('');
    expect(again.headers['idempotent-replayed']).toBe('true');
  });
});

describe('the same key with another request', () => {
  it.each([
    ['another body', 'POST', ENTITLEMENTS, { subscriber_id: 'reused', product: 'textapp', status: 'suspended' }],
    ['another path', 'POST', '/platform/v1/entitlements?x=1', { subscriber_id: 'reused', product: 'textapp', status: 'active' }],
    ['another method', 'PUT', '/v1/subscribers/reused/playback-position', { novel_id: 'n', chapter_id: 'n-ch1', position_seconds: 1 }],
  ] as const)('answers 422 idempotency_key_reused for %s, and does not process it', async (_, method, url, payload) => {
    const key = `reused-${method}-${url.length}-${JSON.stringify(payload).length}`;
    expect((await send('POST', ENTITLEMENTS, { subscriber_id: 'reused', product: 'textapp', status: 'active' }, key)).statusCode).toBe(200);
    const reused = await send(method, url, payload, key);
    expect(reused.statusCode).toBe(422);
    expect(reused.json()).toEqual({ error: 'idempotency_key_reused', error_description: expect.stringContaining('another method, path or body') });
    expect((await historyRows('reused')).at(-1)).toBe('active');
  });
});

describe('a key whose first request is still processed', () => {
  it('answers 409 idempotency_key_in_use with Retry-After: 1, then the stored answer once it is done', async () => {
    const body = { subscriber_id: 'held', product: 'audioapp', status: 'active' };
    // The first request holds its key and waits on this lock until the test lets it go.
    const blocker = new pg.Client({ connectionString: t.databaseUrl });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE entitlements IN SHARE ROW EXCLUSIVE MODE');
      const first = send('POST', ENTITLEMENTS, body, 'held-key');
      await msUntil(
        async () => (await db.query(`SELECT 1 FROM idempotency_keys WHERE partner_id = $1 AND key = 'held-key'`, [partnerId])).rowCount === 1,
        15_000,
      );
      const meanwhile = await send('POST', ENTITLEMENTS, body, 'held-key');
      expect(meanwhile.statusCode).toBe(409);
      expect(meanwhile.headers['retry-after']).toBe('1');
      expect(meanwhile.json()).toEqual({ error: 'idempotency_key_in_use', error_description: expect.any(String) });
      await blocker.query('COMMIT');
      const done = await first;
      expect(done.statusCode).toBe(200);
      const after = await send('POST', ENTITLEMENTS, body, 'held-key');
      expect(after.headers['idempotent-replayed']).toBe('true');
      expect(after.body).toBe(done.body);
      expect(await historyRows('held')).toEqual(['active']);
    } finally {
      await blocker.end();
    }
  });
});

describe('a key whose holder died', () => {
  it('is processed again once its lease ran out, and not before', async () => {
    const body = { subscriber_id: 'orphaned', product: 'textapp', status: 'active' };
    // A claim nobody will answer: the request that made it died with its replica.
    const held = await t.app.get(IdempotencyService).claim({ partnerId, environment: 'live' }, 'orphaned-key', { method: 'POST', url: ENTITLEMENTS, body });
    expect(held.kind).toBe('claimed');
    expect((await send('POST', ENTITLEMENTS, body, 'orphaned-key')).statusCode).toBe(409);
    await db.query(`UPDATE idempotency_keys SET locked_until = now() - interval '1 second' WHERE partner_id = $1 AND key = 'orphaned-key'`, [partnerId]);
    const retried = await send('POST', ENTITLEMENTS, body, 'orphaned-key');
    expect(retried.statusCode).toBe(200);
    expect(await historyRows('orphaned')).toEqual(['active']);
    expect((await send('POST', ENTITLEMENTS, body, 'orphaned-key')).headers['idempotent-replayed']).toBe('true');
  });
});

describe('the purge', () => {
  it('deletes keys kept past their time and keeps the others', async () => {
    const body = { subscriber_id: 'purged', product: 'textapp', status: 'active' };
    await send('POST', ENTITLEMENTS, body, 'old-key');
    await send('POST', ENTITLEMENTS, body, 'recent-key');
    await db.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE partner_id = $1 AND key = 'old-key'`, [partnerId]);
    expect(await t.app.get(IdempotencyKeyPurge).purge()).toBeGreaterThanOrEqual(1);
    const { rows } = await db.query(`SELECT key FROM idempotency_keys WHERE partner_id = $1 AND key IN ('old-key', 'recent-key')`, [partnerId]);
    expect(rows).toEqual([{ key: 'recent-key' }]);
  });
});

describe('a refused request', () => {
  it('is not stored: the corrected retry with the same key is processed', async () => {
    const refused = await send('POST', ENTITLEMENTS, { subscriber_id: 'corrected', product: 'textapp', status: 'paused' }, 'corrected-key');
    expect(refused.statusCode).toBe(400);
    const corrected = await send('POST', ENTITLEMENTS, { subscriber_id: 'corrected', product: 'textapp', status: 'active' }, 'corrected-key');
    expect(corrected.statusCode).toBe(200);
    expect(corrected.headers['idempotent-replayed']).toBeUndefined();
    expect(await historyRows('corrected')).toEqual(['active']);
  });
});

describe('the key itself', () => {
  it.each([
    ['empty', ''],
    ['longer than 255 characters', 'k'.repeat(256)],
    ['not printable ASCII', 'clé'],
    ['a control character', 'a\u0001b'],
  ])('answers 400 invalid_request when it is %s, and processes nothing', async (_, key) => {
    const response = await t.inject({
      method: 'POST',
      url: ENTITLEMENTS,
      headers: { ...bearer(token), 'idempotency-key': key },
      payload: { subscriber_id: 'bad-key', product: 'textapp', status: 'active' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: 'invalid_request', error_description: 'Idempotency-Key must be 1 to 255 printable ASCII characters.' });
    expect(await historyRows('bad-key')).toEqual([]);
  });

  it('takes 255 printable characters, spaces and punctuation included', async () => {
    const key = `${' !"#$%&()*+,-./:;<=>?@[]^_{|}~'}${'k'.repeat(225)}`;
    expect(key).toHaveLength(255);
    expect((await send('POST', ENTITLEMENTS, { subscriber_id: 'long-key', product: 'textapp', status: 'active' }, key)).statusCode).toBe(200);
  });

  it('belongs to the partner and environment: the same key elsewhere is independent', async () => {
    const other = await t.partner();
    const otherToken = await t.token(other);
    const sandbox = await t.partner({ environment: 'sandbox' });
    const sandboxToken = await t.token(sandbox);
    const body = { subscriber_id: 'shared-key', product: 'textapp', status: 'active' };
    const mine = await send('POST', ENTITLEMENTS, body, 'shared-key');
    const theirs = await send('POST', ENTITLEMENTS, { ...body, status: 'suspended' }, 'shared-key', otherToken);
    const sandboxed = await send('POST', ENTITLEMENTS, body, 'shared-key', sandboxToken);
    expect([mine.statusCode, theirs.statusCode, sandboxed.statusCode]).toEqual([200, 200, 200]);
    expect([theirs.headers['idempotent-replayed'], sandboxed.headers['idempotent-replayed']]).toEqual([undefined, undefined]);
    const status = await t.inject({ method: 'GET', url: '/platform/v1/subscriber/shared-key/status', headers: bearer(otherToken) });
    expect(status.json().entitlements[0].status).toBe('suspended');
  });

  it('is ignored by the token endpoint and by reads', async () => {
    const credential = await t.partner();
    const issued = await t.inject({
      method: 'POST',
      url: '/platform/v1/oauth2/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': '' },
      payload: new URLSearchParams({ grant_type: 'client_credentials', client_id: credential.client_id, client_secret: credential.client_secret }).toString(),
    });
    expect(issued.statusCode).toBe(200);
    const read = await t.inject({ method: 'GET', url: '/platform/v1/subscriber/x/status', headers: { ...bearer(token), 'idempotency-key': '' } });
    expect(read.statusCode).toBe(200);
  });
});

describe('the OpenAPI document', () => {
  type Operation = { parameters?: { name: string; in: string }[]; responses: Record<string, { headers?: Record<string, unknown>; description?: string }> };

  it('documents the header, its 409 and 422 and Idempotent-Replayed on every write but the token endpoints', async () => {
    const document = (await t.inject({ method: 'GET', url: '/docs/openapi.json' })).json();
    const writes = Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([method]) => ['post', 'put', 'delete'].includes(method))
        .map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, operation })),
    );
    const keyed = writes.filter(({ operation }) => operation.parameters?.some((p) => p.in === 'header' && p.name === 'Idempotency-Key'));
    expect(writes.filter((write) => !keyed.includes(write)).map((write) => write.name)).toEqual([
      'POST /platform/v1/oauth2/token',
      'POST /kids/v1/oauth2/token',
    ]);
    expect(keyed.length).toBeGreaterThan(10);
    for (const { operation } of keyed) {
      expect(operation.responses['409'].description).toContain('idempotency_key_in_use');
      expect(operation.responses['409'].headers).toHaveProperty('Retry-After');
      expect(operation.responses['422'].description).toContain('idempotency_key_reused');
      const successes = Object.entries(operation.responses).filter(([status]) => status.startsWith('2'));
      expect(successes.every(([, response]) => response.headers?.['Idempotent-Replayed'] !== undefined)).toBe(true);
    }
  });
});
