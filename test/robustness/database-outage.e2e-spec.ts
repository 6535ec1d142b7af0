import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { bearer, startTestApp, type TestApp } from '../support/test-app.js';
import { freePort } from '../../src/shared/net/free-port.js';
import { startPostgresServer, type PostgresServer } from '../../src/database/postgres-server.js';

/**
 * The database goes away under load and comes back: the service answers 503 (never 500,
 * never a hang), readiness fails meanwhile, it recovers without a restart, and every
 * write it acknowledged is there afterwards.
 */
const dir = mkdtempSync(join(tmpdir(), 'prl-outage-'));
chmodSync(dir, 0o755);
let server: PostgresServer;
let startServer: () => Promise<PostgresServer>;
let t: TestApp;
let token: string;

beforeAll(async () => {
  const port = await freePort();
  startServer = () => startPostgresServer({ dataDir: join(dir, 'pg'), port, user: 'postgres', password: 'outage' });
  server = await startServer();
  const admin = new pg.Client({ connectionString: `postgres://postgres:outage@127.0.0.1:${port}/postgres` });
  await admin.connect();
  await admin.query('CREATE DATABASE outage');
  await admin.end();
  t = await startTestApp({}, `postgres://postgres:outage@127.0.0.1:${port}/outage`);
  token = await t.token(await t.partner());
}, 60_000);

afterAll(async () => {
  await t?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('503 while the database is down, recovery without restart, no acknowledged write lost', async () => {
  const acknowledged: string[] = [];
  const statuses = new Map<number, number>();
  let next = 0;
  let running = true;
  const writer = async () => {
    while (running) {
      const subscriber = `outage-${next++}`;
      const started = Date.now();
      const response = await t.inject({
        method: 'POST',
        url: '/platform/v1/entitlements',
        headers: bearer(token),
        payload: { subscriber_id: subscriber, product: 'textapp', status: 'active' },
      });
      expect(Date.now() - started).toBeLessThan(10_000);
      statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
      if (response.statusCode === 200) acknowledged.push(subscriber);
      else {
        expect(response.statusCode).toBe(503);
        expect(response.json()).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
        expect(response.headers['retry-after']).toBeDefined();
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  };
  const writers = Array.from({ length: 4 }, writer);

  await new Promise((r) => setTimeout(r, 500));
  await server.stop();
  await new Promise((r) => setTimeout(r, 1500));
  const ready = await t.inject({ method: 'GET', url: '/health/ready' });
  expect(ready.statusCode).toBe(503);
  expect(ready.json().error).toBe('temporarily_unavailable');

  server = await startServer();
  const deadline = Date.now() + 20_000;
  while ((await t.inject({ method: 'GET', url: '/health/ready' })).statusCode !== 200) {
    if (Date.now() > deadline) throw new Error('the service did not recover');
    await new Promise((r) => setTimeout(r, 200));
  }
  const acknowledgedBeforeRecovery = acknowledged.length;
  await new Promise((r) => setTimeout(r, 500));
  running = false;
  await Promise.all(writers);

  expect(statuses.get(503)).toBeGreaterThan(0);
  expect(acknowledged.length).toBeGreaterThan(acknowledgedBeforeRecovery);
  const status = await t.inject({ method: 'GET', url: `/platform/v1/subscriber/${acknowledged[0]}/status`, headers: bearer(token) });
  expect(status.statusCode).toBe(200);
  const client = new pg.Client({ connectionString: t.databaseUrl });
  await client.connect();
  const { rows } = await client.query<{ subscriber_id: string }>(`SELECT subscriber_id FROM entitlements WHERE subscriber_id = ANY($1)`, [acknowledged]);
  await client.end();
  expect(rows.map((r) => r.subscriber_id).sort()).toEqual([...acknowledged].sort());
}, 90_000);
