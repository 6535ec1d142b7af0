import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { buildOnce } from '../support/processes.js';
import { startTestApp, TEST_SERVER_SECRET, type TestApp } from '../support/test-app.js';
import { partnerWithEndpoint, publishFinished, waitFor, WebhookReceiver } from './webhook-test-kit.js';

const ROOT = resolve(import.meta.dirname, '../..');
const EVENTS = 60;

/**
 * The real service, as deployed: `node dist/src/main.js` in a process of its own (built
 * once per test run), on this test's database. Only the platform
 * surface, with its delivery worker; the timeout of 1 s gives leases of 2 s.
 */
function startService(databaseUrl: string, stderr: string[]): ChildProcess {
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'test',
      DATABASE_URL: databaseUrl,
      SERVER_SECRET: TEST_SERVER_SECRET, // startTestApp's, which sealed the secrets
      DATA_DIR: mkdtempSync(join(tmpdir(), 'prl-test-service-')),
      HOST: '127.0.0.1',
      PORT: '0',
      SERVICES: 'platform',
      LOG_LEVEL: 'error',
      KEY_ACTIVATION_DELAY_SECONDS: '0',
      WEBHOOK_RETRY_SCHEDULE: '0,0.2,0.4',
      WEBHOOK_POLL_INTERVAL_MS: '50',
      WEBHOOK_TIMEOUT_MS: '1000',
      // Live endpoints on 127.0.0.1 over http: the URL rules are tested apart.
      WEBHOOK_ALLOW_INSECURE_URLS: 'true',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  return child;
}

describe('webhook delivery across a crash and a shutdown', () => {
  let app: TestApp;
  let receiver: WebhookReceiver;
  let db: pg.Client;
  const children: ChildProcess[] = [];
  const stderr: string[] = [];

  beforeAll(async () => {
    buildOnce();
    receiver = await WebhookReceiver.start();
    // Registers and publishes; its own worker stays off so only the service process delivers.
    app = await startTestApp({ WEBHOOK_WORKER: 'false', WEBHOOK_ALLOW_INSECURE_URLS: 'true' });
    db = new pg.Client({ connectionString: app.databaseUrl });
    await db.connect();
  }, 120_000);

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await app?.close();
    await db?.end();
    await receiver?.close();
  });

  const countByStatus = async () => {
    const { rows } = await db.query(`SELECT status, count(*)::int AS n FROM webhook_deliveries GROUP BY status`);
    return Object.fromEntries(rows.map((row) => [row.status, row.n])) as Record<string, number>;
  };

  it('delivers every event after the service is killed with SIGKILL mid-delivery and restarted', async () => {
    // Slow answers keep attempts in flight when the process dies.
    receiver.answerWith(() => ({ status: 200, delayMs: 300 }));
    const { tenant } = await partnerWithEndpoint(app, receiver.url());
    const published = await Promise.all(Array.from({ length: EVENTS }, (_, i) => publishFinished(app, tenant, `sub-${i}`)));

    const crashing = startService(app.databaseUrl, stderr);
    children.push(crashing);
    await waitFor(
      () => receiver.received.length >= 5,
      () => `the first deliveries (service stderr: ${stderr.join('')})`,
      30_000,
    );
    crashing.kill('SIGKILL');
    await once(crashing, 'exit');
    const atCrash = await countByStatus();
    expect(atCrash.pending).toBeGreaterThan(0);

    const restarted = startService(app.databaseUrl, stderr);
    children.push(restarted);
    const delivered = () => new Set(receiver.received.map((request) => request.headers['webhook-id']));
    await waitFor(
      () => delivered().size === EVENTS,
      () => `every event after the restart (service stderr: ${stderr.join('')})`,
      30_000,
    );
    expect(delivered()).toEqual(new Set(published.map((event) => event.event_id)));
    await waitFor(async () => (await countByStatus()).delivered === EVENTS, 'every delivery to be recorded');

    restarted.kill('SIGKILL');
    await once(restarted, 'exit');
  });

  it('finishes and records the attempt in flight when the application shuts down', async () => {
    // In process, through app.close(): what a service runs when it is told to stop.
    const service = await startTestApp({ WEBHOOK_POLL_INTERVAL_MS: '50', WEBHOOK_ALLOW_INSECURE_URLS: 'true' }, app.databaseUrl);
    const { tenant } = await partnerWithEndpoint(app, receiver.url('/shutdown'));
    receiver.answerWith(() => ({ status: 200, delayMs: 500 }));
    const event = await publishFinished(app, tenant);
    await waitFor(() => receiver.at('/shutdown').length === 1, 'the attempt to start');
    await service.close();

    const { rows } = await db.query(
      `SELECT d.status, count(a.id)::int AS attempts FROM webhook_deliveries d
       LEFT JOIN webhook_delivery_attempts a ON a.delivery_id = d.id WHERE d.event_id = $1 GROUP BY d.status`,
      [event.event_id],
    );
    expect(rows).toEqual([{ status: 'delivered', attempts: 1 }]);
  });
});
