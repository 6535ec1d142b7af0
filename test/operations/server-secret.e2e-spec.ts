import { DataSource } from 'typeorm';
import { SecretRotationService } from '../../src/modules/server-secret/index.js';
import { ServerSecrets } from '../../src/shared/crypto/server-secrets.js';
import { buildOnce, runNode } from '../support/processes.js';
import { createTestDatabase } from '../support/test-database.js';
import { bearer, startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Issue 27, item 2 (ADR 0003): the database records which SERVER_SECRET it goes with; a
 * process started with another refuses in one line, and SERVER_SECRET_PREVIOUS rotates the
 * secret with replicas of both configurations serving throughout.
 */
const OLD = 'old-server-secret-Zx8Qm2vL0aR7tK4pW9cE1yH6uJ3n';
const NEW = 'new-server-secret-f3a9c21e8b4d60f5a2e19c7b3d8e0a4f';
const OTHER = 'other-server-secret-q0w9e8r7t6y5u4i3o2p1a2s3d4f5';

async function startService(databaseUrl: string, env: Record<string, string>) {
  const service = runNode('dist/src/main.js', [], {
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    DATABASE_URL: databaseUrl,
    PUBLIC_BASE_URL: 'http://localhost:3000',
    HOST: '127.0.0.1',
    PORT: '0',
    ...env,
  });
  return { code: await service.exit(), lines: service.output().trim().split('\n') };
}

describe('a SERVER_SECRET the database was not set up with', () => {
  let databaseUrl: string;
  beforeAll(async () => {
    buildOnce();
    databaseUrl = await createTestDatabase();
    const first = await startTestApp({ SERVER_SECRET: OLD }, databaseUrl);
    await first.partner();
    await first.close();
  }, 120_000);

  it('stops the service at start in one line naming SERVER_SECRET', async () => {
    const { code, lines } = await startService(databaseUrl, { SERVER_SECRET: OTHER });
    expect(code).toBe(1);
    expect(lines).toEqual([expect.stringMatching(/^Configuration error: SERVER_SECRET is not the secret this database was set up with/)]);
  }, 60_000);

  it('is found from the sealed keys of a database set up before fingerprints were recorded', async () => {
    const legacy = await createTestDatabase();
    const first = await startTestApp({ SERVER_SECRET: OLD }, legacy);
    await first.app.get(DataSource).query('DELETE FROM server_secret');
    await first.close();
    const { code, lines } = await startService(legacy, { SERVER_SECRET: OTHER });
    expect({ code, last: lines.at(-1) }).toEqual({ code: 1, last: expect.stringContaining('SERVER_SECRET is not the secret this database was set up with') });
    const right = await startTestApp({ SERVER_SECRET: OLD }, legacy);
    expect(await right.app.get(DataSource).query('SELECT fingerprint FROM server_secret')).toEqual([
      { fingerprint: right.app.get(ServerSecrets).fingerprints.current },
    ]);
    await right.close();
  }, 60_000);
});

describe('rotating SERVER_SECRET without downtime', () => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const app of apps) await app.close();
  });
  const replica = async (env: Record<string, string>, databaseUrl?: string) => {
    const app = await startTestApp(env, databaseUrl);
    apps.push(app);
    return app;
  };
  const tokenStatus = async (app: TestApp, credential: { client_id: string; client_secret: string }) =>
    (
      await app.inject({
        method: 'POST',
        url: '/platform/v1/oauth2/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ grant_type: 'client_credentials', client_id: credential.client_id, client_secret: credential.client_secret }).toString(),
      })
    ).statusCode;

  it('keeps every replica serving through the rollout, the rotation and the removal of the old secret', async () => {
    const old = await replica({ SERVER_SECRET: OLD });
    const before = await old.partner({ scopes: ['platform:webhooks:manage'], environment: 'sandbox' });
    // Keyed: its stored answer carries the secret, sealed as the secret itself is (ADR 0144).
    const created = await old.inject({
      method: 'POST',
      url: '/platform/v1/webhook-endpoints',
      headers: { ...bearer(await old.token(before)), 'idempotency-key': 'before-rotation' },
      payload: { url: 'http://127.0.0.1:9/hook', events: ['novel.finished'] },
    });
    const endpoint = created.json();

    // Step 1, the rollout: a replica with both secrets beside one with the old only. It keeps
    // writing with the old secret, so what either writes the other reads.
    const both = await replica({ SERVER_SECRET: NEW, SERVER_SECRET_PREVIOUS: OLD }, old.databaseUrl);
    const duringRollout = await both.partner();
    expect([await tokenStatus(both, before), await tokenStatus(old, duringRollout), await tokenStatus(both, duringRollout)]).toEqual([200, 200, 200]);

    // Step 2, once every replica runs with both: the rotation.
    const another = await replica({ SERVER_SECRET: NEW, SERVER_SECRET_PREVIOUS: OLD }, old.databaseUrl);
    await old.close();
    apps.splice(apps.indexOf(old), 1);
    const result = await both.app.get(SecretRotationService).rotate();
    expect(result).toEqual({ signing_keys_resealed: 2, webhook_secrets_resealed: 1, idempotent_answers_resealed: 1, credentials_awaiting_upgrade: 2 });
    // The other replica follows at commit: what it writes now, the new secret alone reads.
    const deadline = Date.now() + 2_000;
    while (another.app.get(ServerSecrets).writingFingerprint !== another.app.get(ServerSecrets).fingerprints.current && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const afterRotation = await another.partner();
    // Each credential is upgraded by its next use.
    expect([await tokenStatus(another, before), await tokenStatus(both, duringRollout), await tokenStatus(both, afterRotation)]).toEqual([200, 200, 200]);
    expect((await both.app.get(SecretRotationService).rotate()).credentials_awaiting_upgrade).toBe(0);

    // Step 3: the old secret removed. Everything still works with the new one alone.
    const newOnly = await replica({ SERVER_SECRET: NEW }, both.databaseUrl);
    expect([await tokenStatus(newOnly, before), await tokenStatus(newOnly, duringRollout), await tokenStatus(newOnly, afterRotation)]).toEqual([200, 200, 200]);
    const [{ sealed_secret }] = await newOnly.app
      .get(DataSource)
      .query('SELECT sealed_secret FROM webhook_endpoint_secrets WHERE endpoint_id = $1', [endpoint.id]);
    expect(newOnly.app.get(ServerSecrets).unseal(sealed_secret)).toBe(endpoint.secret);
    // The stored answer too: the new secret alone replays it.
    const replayed = await newOnly.inject({
      method: 'POST',
      url: '/platform/v1/webhook-endpoints',
      headers: { ...bearer(await newOnly.token(before)), 'idempotency-key': 'before-rotation' },
      payload: { url: 'http://127.0.0.1:9/hook', events: ['novel.finished'] },
    });
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toBe(created.body);
  }, 120_000);

  it('refuses secret:rotate without SERVER_SECRET_PREVIOUS', async () => {
    const app = await replica({ SERVER_SECRET: OLD });
    await expect(app.app.get(SecretRotationService).rotate()).rejects.toThrow(/SERVER_SECRET_PREVIOUS/);
  });
});
