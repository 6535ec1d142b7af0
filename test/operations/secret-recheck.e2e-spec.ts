import pg from 'pg';
import { FINGERPRINT_RECHECK_SECONDS } from '../../src/modules/server-secret/application/server-secret-gate.js';
import { buildOnce, runNode, startService, type ServiceProcess } from '../support/processes.js';
import { bearer, serviceEnvFor, startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Issue 38, item 2 (ADR 0003): a replica left on the old SERVER_SECRET when another one
 * rotates the database says so. It rechecks the recorded fingerprint on the rotation's
 * NOTIFY (and every probe, and every 30 s), turns not ready with the reason, logs it once,
 * and `secret:status` lists what it still seals under the old secret.
 */
const OLD = 'old-server-secret-recheck-Zx8Qm2vL0aR7tK4pW9cE1y';
const NEW = 'new-server-secret-recheck-f3a9c21e8b4d60f5a2e19c7b';
const MISMATCH = /SERVER_SECRET is not the secret this database was set up with/g;

async function cli(env: Record<string, string>, args: string[]) {
  const process = runNode('dist/src/cli.js', args, env);
  const code = await process.exit();
  const output = process.output();
  return { code, output, json: code === 0 ? JSON.parse(output.slice(output.indexOf('{'))) : undefined };
}

describe('a replica on the old SERVER_SECRET after a rotation', () => {
  let setup: TestApp;
  let rotated: TestApp | undefined;
  let replica: (ServiceProcess & { origin: string }) | undefined;
  afterAll(async () => {
    replica?.child.kill('SIGTERM');
    await replica?.exit();
    await rotated?.close();
  });

  it('turns not ready with the reason, logs it once, and secret:status lists what it sealed', async () => {
    buildOnce();
    setup = await startTestApp({ SERVER_SECRET: OLD });
    const user = await setup.partner({ scopes: ['platform:webhooks:manage'], environment: 'sandbox' });
    const idle = await setup.partner();
    await setup.close();
    const oldEnv = serviceEnvFor(setup, { SERVER_SECRET: OLD });
    const newEnv = serviceEnvFor(setup, { SERVER_SECRET: NEW, SERVER_SECRET_PREVIOUS: OLD });
    replica = await startService(oldEnv);
    expect((await fetch(`${replica.origin}/health/ready`)).status).toBe(200);

    expect((await cli(newEnv, ['secret:rotate'])).code).toBe(0);
    // Before any probe: the rotation's NOTIFY alone tells the replica.
    await replica.waitForOutput(MISMATCH, 10_000);

    const probes = [];
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${replica.origin}/health/ready`);
      probes.push({ status: response.status, body: await response.json() });
    }
    expect(probes).toEqual(
      Array(3).fill({
        status: 503,
        body: { error: 'temporarily_unavailable', error_description: expect.stringMatching(/^Not ready: SERVER_SECRET is not the secret/) },
      }),
    );
    expect(replica.output().match(MISMATCH)).toHaveLength(1);

    // What the replica writes meanwhile is sealed under the old secret: secret:status names it.
    rotated = await startTestApp({ SERVER_SECRET: NEW, SERVER_SECRET_PREVIOUS: OLD }, setup.databaseUrl);
    const created = await fetch(`${replica.origin}/platform/v1/webhook-endpoints`, {
      method: 'POST',
      headers: { ...bearer(await rotated.token(user)), 'content-type': 'application/json', 'idempotency-key': 'on-the-old-secret' },
      body: JSON.stringify({ url: 'http://127.0.0.1:9/hook', events: ['novel.finished'] }),
    });
    expect(created.status).toBe(201);
    const endpoint = (await created.json()) as { id: string };

    const status = await cli(newEnv, ['secret:status']);
    expect(status.json).toEqual({
      recorded_secret: 'SERVER_SECRET',
      // `user` obtained a token since the rotation, which re-hashed its secret; `idle` did not.
      credentials: [{ client_id: idle.client_id, partner_id: idle.partner_id, environment: 'live', last_used_at: null }],
      signing_keys: [],
      webhook_endpoints: [{ endpoint_id: endpoint.id, partner_id: user.partner_id, environment: 'sandbox' }],
      // Its stored answer carries the secret, sealed under the old secret too.
      idempotent_answers: [{ partner_id: user.partner_id, environment: 'sandbox', key: 'on-the-old-secret' }],
    });
  }, 180_000);
});

describe('a fingerprint changed without a notification', () => {
  it('is found by the periodic recheck, without any readiness probe', async () => {
    buildOnce();
    const app = await startTestApp({ SERVER_SECRET: OLD });
    await app.close();
    const replica = await startService(serviceEnvFor(app, { SERVER_SECRET: OLD }));
    try {
      // As a rotation committed while this replica's listening connection was down would leave it.
      const client = new pg.Client({ connectionString: app.databaseUrl });
      await client.connect();
      await client.query(`UPDATE server_secret SET fingerprint = 'another-secret-fingerprint'`);
      await client.end();
      await replica.waitForOutput(MISMATCH, (FINGERPRINT_RECHECK_SECONDS + 10) * 1000);
      expect((await fetch(`${replica.origin}/health/ready`)).status).toBe(503);
    } finally {
      replica.child.kill('SIGTERM');
      await replica.exit();
    }
  }, 90_000);
});
