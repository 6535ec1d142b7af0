import { jest } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { PlaybackService } from '../../src/modules/playback/application/playback.service.js';
import { jsonAnswer, type HeldIdempotencyKey } from '../../src/shared/idempotency/keyed-answer.js';
import { ServerSecrets } from '../../src/shared/crypto/server-secrets.js';
import { IdempotencyService } from '../../src/modules/idempotency/application/idempotency.service.js';
import { carriesSecret } from '../../src/modules/idempotency/http/idempotency.interceptor.js';
import { IdempotencyKeyPurge } from '../../src/modules/idempotency/index.js';
import { importCatalog, manifest, manifestNovel } from '../fixtures/catalog-fixture.js';
import { statementsDuring } from '../fixtures/query-counter.js';
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
  await importCatalog(t, manifest([manifestNovel('keyed-novel', { chapters: 3 })]));
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

describe('a keyed playback PUT (the hot write)', () => {
  const positionOf = (subscriber: string) => `/v1/subscribers/${subscriber}/playback-position`;
  const at = (chapter: number, seconds: number) => ({ novel_id: 'keyed-novel', chapter_id: `keyed-novel-ch${chapter}`, position_seconds: seconds });
  const stored = async (key: string) =>
    (await db.query(`SELECT response_status, response_body, response_sealed FROM idempotency_keys WHERE partner_id = $1 AND key = $2`, [partnerId, key]))
      .rows[0];
  async function listener(subscriber: string): Promise<void> {
    expect((await send('POST', ENTITLEMENTS, { subscriber_id: subscriber, product: 'audioapp', status: 'active', plan: 'audio_standard' })).statusCode).toBe(
      200,
    );
    expect((await send('POST', `/v1/subscribers/${subscriber}/novels`, { novel_id: 'keyed-novel' })).statusCode).toBe(201);
    await db.query(`UPDATE novel_progress SET started_at = now() - interval '10 days' WHERE partner_id = $1 AND subscriber_id = $2`, [partnerId, subscriber]);
  }

  it('costs one statement more than without a key: the claim; the answer is stored by the statement that stores the position', async () => {
    await listener('keyed-put');
    expect((await send('PUT', positionOf('keyed-put'), at(1, 5))).statusCode).toBe(200); // the chapter's first save of the day
    const plain = await statementsDuring(t, () => send('PUT', positionOf('keyed-put'), at(1, 10)), { keepTransactions: true });
    let first: Awaited<ReturnType<typeof send>> | undefined;
    const keyed = await statementsDuring(t, async () => (first = await send('PUT', positionOf('keyed-put'), at(1, 20), 'keyed-put-1')), {
      keepTransactions: true,
    });
    expect(plain).toHaveLength(1);
    expect(keyed).toHaveLength(2);
    expect(keyed[0]).toMatch(/^\s*WITH claimed AS \(\s*INSERT INTO idempotency_keys/);
    expect(keyed[1]).toMatch(/INSERT INTO playback_positions[\s\S]*UPDATE idempotency_keys/);
    expect(first!.statusCode).toBe(200);
    expect(await stored('keyed-put-1')).toEqual({ response_status: 200, response_body: first!.body, response_sealed: false });

    // A later write in between: a second processing of the keyed one would move the position back.
    expect((await send('PUT', positionOf('keyed-put'), at(1, 30))).statusCode).toBe(200);
    const replays = await statementsDuring(t, async () => {
      const again = await send('PUT', positionOf('keyed-put'), at(1, 20), 'keyed-put-1');
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.headers['content-type']).toBe(first!.headers['content-type']);
      expect(again.body).toBe(first!.body);
    });
    expect(replays).toHaveLength(1);
    const read = await t.inject({ method: 'GET', url: `${positionOf('keyed-put')}?novel_id=keyed-novel`, headers: bearer(token) });
    expect(read.json().position_seconds).toBe(30);
  });

  it("stores the answer with the chapter's first save of a day too, and on the singular alias", async () => {
    await listener('keyed-first');
    let first: Awaited<ReturnType<typeof send>> | undefined;
    const keyed = await statementsDuring(t, async () => (first = await send('PUT', positionOf('keyed-first'), at(2, 7), 'keyed-first-1')));
    // The claim, the usual save (nothing recorded today: it writes nothing), the first save with the answer.
    expect(keyed).toHaveLength(3);
    expect(keyed[2]).toMatch(/INSERT INTO reading_activity[\s\S]*UPDATE idempotency_keys/);
    expect(await stored('keyed-first-1')).toEqual({ response_status: 200, response_body: first!.body, response_sealed: false });
    const alias = await send('PUT', '/v1/subscriber/keyed-first/playback-position', at(2, 8), 'keyed-alias-1');
    expect(await stored('keyed-alias-1')).toEqual({ response_status: 200, response_body: alias.body, response_sealed: false });
  });

  it('stores no answer when the chapter is not released: the key is given up and the corrected retry processed', async () => {
    expect(
      (await send('POST', ENTITLEMENTS, { subscriber_id: 'keyed-locked', product: 'audioapp', status: 'active', plan: 'audio_standard' })).statusCode,
    ).toBe(200);
    expect((await send('POST', `/v1/subscribers/keyed-locked/novels`, { novel_id: 'keyed-novel' })).statusCode).toBe(201);
    const refused = await send('PUT', positionOf('keyed-locked'), at(3, 1), 'keyed-locked-1');
    expect(refused.statusCode).toBe(400);
    expect(await stored('keyed-locked-1')).toBeUndefined();
    const corrected = await send('PUT', positionOf('keyed-locked'), at(1, 1), 'keyed-locked-1');
    expect(corrected.statusCode).toBe(200);
    expect(corrected.headers['idempotent-replayed']).toBeUndefined();
  });

  it('stores nothing with the work of a holder that lost its key: the claim token guards the answer', async () => {
    await listener('keyed-lost');
    const url = positionOf('keyed-lost');
    const taken = await send('PUT', url, at(1, 40), 'keyed-lost-1');
    // The work of a request whose lease ran out and whose key another request took over (its token is not the key's).
    const stale: HeldIdempotencyKey = { partnerId, environment: 'live', key: 'keyed-lost-1', claimToken: randomUUID() };
    const write = { novelId: 'keyed-novel', chapterId: 'keyed-novel-ch1', positionSeconds: 41 };
    await t.app
      .get(PlaybackService)
      .write({ partnerId, environment: 'live' }, 'keyed-lost', write, { held: stale, answerFor: () => jsonAnswer(200, { stale: true }) });
    expect(stale.storedInWork).toBeUndefined();
    expect((await stored('keyed-lost-1')).response_body).toBe(taken.body);
  });
});

describe('an answer stored with the work that is not what the handler sent', () => {
  it('is replaced by the sent one: the replay is always the bytes first sent', async () => {
    const subscriber = 'keyed-differs';
    expect((await send('POST', ENTITLEMENTS, { subscriber_id: subscriber, product: 'audioapp', status: 'active', plan: 'audio_standard' })).statusCode).toBe(
      200,
    );
    expect((await send('POST', `/v1/subscribers/${subscriber}/novels`, { novel_id: 'keyed-novel' })).statusCode).toBe(201);
    const playback = t.app.get(PlaybackService);
    const write = playback.write.bind(playback);
    // A mapper that drifted from the handler's answer: the work's statement stores other bytes.
    const drifted = jest
      .spyOn(playback, 'write')
      .mockImplementation((tenant, id, input, keyed) =>
        write(tenant, id, input, keyed && { held: keyed.held, answerFor: () => jsonAnswer(200, { drifted: true }) }),
      );
    try {
      const url = `/v1/subscribers/${subscriber}/playback-position`;
      const body = { novel_id: 'keyed-novel', chapter_id: 'keyed-novel-ch1', position_seconds: 3 };
      const first = await send('PUT', url, body, 'keyed-differs-1');
      expect(first.json().position_seconds).toBe(3);
      const again = await send('PUT', url, body, 'keyed-differs-1');
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toBe(first.body);
    } finally {
      drifted.mockRestore();
    }
  });
});

describe('stored answers that carry a secret', () => {
  it('are sealed: the table holds no webhook secret in plaintext, and the replay shows it', async () => {
    const { credential, token: manager, endpoint } = await partnerWithEndpoint(t, RECEIVER);
    const created = await send('POST', ENDPOINTS, { url: `${RECEIVER}/sealed`, events: ['novel.finished'] }, 'sealed-create', manager);
    const rotated = await send('POST', `${ENDPOINTS}/${endpoint.id}/rotate-secret`, undefined, 'sealed-rotate', manager);
    expect([created.statusCode, rotated.statusCode]).toEqual([201, 200]);
    const secrets = [created.json().secret, rotated.json().secret];
    expect(secrets.every((secret) => typeof secret === 'string' && secret.startsWith('whsec_'))).toBe(true);

    const { rows } = await db.query(
      `SELECT key, response_body, response_headers::text AS headers, response_sealed FROM idempotency_keys WHERE partner_id = $1`,
      [credential.partner_id],
    );
    expect(rows.map((row: { key: string; response_sealed: boolean }) => [row.key, row.response_sealed]).sort()).toEqual([
      ['sealed-create', true],
      ['sealed-rotate', true],
    ]);
    const everything = JSON.stringify(rows);
    for (const secret of secrets) {
      expect(everything).not.toContain(secret);
      expect(everything).not.toContain(secret.slice('whsec_'.length));
    }
    const bodies = rows.map((row: { response_body: string }) => t.app.get(ServerSecrets).unseal(row.response_body));
    expect(bodies.sort()).toEqual([created.body, rotated.body].sort());

    const again = await send('POST', ENDPOINTS, { url: `${RECEIVER}/sealed`, events: ['novel.finished'] }, 'sealed-create', manager);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(created.body);
    const rotatedAgain = await send('POST', `${ENDPOINTS}/${endpoint.id}/rotate-secret`, undefined, 'sealed-rotate', manager);
    expect(rotatedAgain.body).toBe(rotated.body);
  });

  it('are told by their fields, at any depth; other answers stay plain (an erasure can find the subscribers they name)', async () => {
    expect([{ secret: 'x' }, { data: [{ client_secret: 'x' }] }, { private_key: 'x' }, { access_token: 'x' }].map((answer) => carriesSecret(answer))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect([{ subscriber_id: 's', status: 'active' }, [], 'secret', null, undefined].map((answer) => carriesSecret(answer))).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
    const plain = await send('POST', ENTITLEMENTS, { subscriber_id: 'plain-answer', product: 'textapp', status: 'active' }, 'plain-answer');
    const { rows } = await db.query(`SELECT response_sealed, response_body FROM idempotency_keys WHERE partner_id = $1 AND key = 'plain-answer'`, [partnerId]);
    expect(rows).toEqual([{ response_sealed: false, response_body: plain.body }]);
  });
});

describe('the same key with another request', () => {
  it.each([
    ['another body', 'POST', ENTITLEMENTS, { subscriber_id: 'reused', product: 'textapp', status: 'suspended' }],
    ['another path', 'POST', '/v1/subscribers/reused/novels', { subscriber_id: 'reused', product: 'textapp', status: 'active' }],
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

describe('a keyed write and its answer (ADR 0158)', () => {
  /** Makes storing an answer fail for keys named so, as a replica dying between the work and its answer would. */
  async function refuseAnswersOf(keyPattern: string): Promise<() => Promise<void>> {
    await db.query(`CREATE OR REPLACE FUNCTION test_refuse_answer() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'answer refused'; END $$`);
    await db.query(
      `CREATE TRIGGER test_refuse_answer BEFORE UPDATE ON idempotency_keys FOR EACH ROW
        WHEN (NEW.key LIKE '${keyPattern}' AND NEW.response_status IS NOT NULL) EXECUTE FUNCTION test_refuse_answer()`,
    );
    return async () => {
      await db.query(`DROP TRIGGER test_refuse_answer ON idempotency_keys`);
    };
  }

  it('commit together: an answer that cannot be stored rolls the work back, and the retry does it once', async () => {
    const { credential, token: manager, endpoint } = await partnerWithEndpoint(t, RECEIVER);
    const body = { url: `${RECEIVER}/unanswered`, events: ['novel.finished'] };
    const allowAnswers = await refuseAnswersOf('unanswered-%');
    try {
      const refused = await send('POST', ENDPOINTS, body, 'unanswered-endpoint', manager);
      expect(refused.statusCode).toBe(500);
      // The handler had set where the endpoint would live; the failure's answer does not say so.
      expect(refused.headers.location).toBeUndefined();
      expect(await endpointCount(credential.partner_id)).toBe(1);
      expect((await send('DELETE', `${ENDPOINTS}/${endpoint.id}`, undefined, 'unanswered-delete', manager)).statusCode).toBe(500);
      expect((await db.query(`SELECT 1 FROM webhook_endpoints WHERE id = $1`, [endpoint.id])).rowCount).toBe(1);
    } finally {
      await allowAnswers();
    }
    // Neither the endpoint created nor the one deleted: each work went with its answer, and the keys were given up.
    const { rows } = await db.query(`SELECT key FROM idempotency_keys WHERE partner_id = $1 AND key LIKE 'unanswered-%'`, [credential.partner_id]);
    expect(rows).toEqual([]);

    const retried = await send('POST', ENDPOINTS, body, 'unanswered-endpoint', manager);
    expect(retried.statusCode).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect((await send('POST', ENDPOINTS, body, 'unanswered-endpoint', manager)).headers['idempotent-replayed']).toBe('true');
    expect(await endpointCount(credential.partner_id)).toBe(2);
  });

  it('is undone when another request took the key over meanwhile: 409, and the holder of the key does the work', async () => {
    const body = { subscriber_id: 'taken-over', product: 'textapp', status: 'active' };
    // A trigger in the work's transaction gives the key to another claim token, as a takeover after the lease would.
    await db.query(`CREATE OR REPLACE FUNCTION test_take_key_over() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN UPDATE idempotency_keys SET claim_token = gen_random_uuid() WHERE key = 'taken-over-key'; RETURN NEW; END $$`);
    await db.query(`CREATE TRIGGER test_take_key_over AFTER INSERT ON entitlement_history FOR EACH ROW EXECUTE FUNCTION test_take_key_over()`);
    try {
      const late = await send('POST', ENTITLEMENTS, body, 'taken-over-key');
      expect(late.statusCode).toBe(409);
      expect(late.json().error).toBe('idempotency_key_in_use');
      expect(late.headers['retry-after']).toBe('1');
    } finally {
      await db.query(`DROP TRIGGER test_take_key_over ON entitlement_history`);
    }
    expect(await historyRows('taken-over')).toEqual([]);
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

  it('with an undeclared query parameter is refused before its key is looked at: 400 even for a key in use elsewhere', async () => {
    const done = { subscriber_id: 'undeclared-input', product: 'textapp', status: 'active' };
    expect((await send('POST', ENTITLEMENTS, done, 'undeclared-input-key')).statusCode).toBe(200);
    const refused = await send('POST', `${ENTITLEMENTS}?x=1`, done, 'undeclared-input-key');
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({ error: 'invalid_request', error_description: expect.stringContaining('Unknown query parameter: x') });
    const fresh = await send('POST', `${ENTITLEMENTS}?x=1`, { ...done, subscriber_id: 'undeclared-input-2' }, 'undeclared-input-fresh');
    expect(fresh.statusCode).toBe(400);
    const corrected = await send('POST', ENTITLEMENTS, { ...done, subscriber_id: 'undeclared-input-2' }, 'undeclared-input-fresh');
    expect(corrected.statusCode).toBe(200);
    expect(corrected.headers['idempotent-replayed']).toBeUndefined();
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

  it('documents the header, its 409, 422 and 503 and Idempotent-Replayed on every write but the token endpoints', async () => {
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
      expect(operation.responses['503'].description).toContain('too many keyed writes');
      const successes = Object.entries(operation.responses).filter(([status]) => status.startsWith('2'));
      expect(successes.every(([, response]) => response.headers?.['Idempotent-Replayed'] !== undefined)).toBe(true);
    }
  });
});
