import { join } from 'node:path';
import { createDatabaseIfMissing } from '../../src/database/database-location.js';
import { startPostgresServer, type PostgresServer } from '../../src/database/postgres-server.js';
import { ApiError, type PartnerClient, type RetryEvent } from '../../sdk/src/index.js';
import { clusterRoot, removeRoot, startPrimary, type Cluster } from '../support/clusters.js';
import { createCredential, sandboxClient, serviceEnv, startService, waitFor, type Service } from './sdk-test-kit.js';

/**
 * A 503 while PostgreSQL is stopped: the service runs on a cluster of this file's own (the
 * tests' shared server stays up), which the test stops and starts again on the same port.
 * The SDK waits the answer's Retry-After and its calls succeed once the database is back.
 */
const DATABASE = 'sdk_outage';
let root: string;
let primary: Cluster & { password: string };
let restarted: PostgresServer | undefined;
let service: Service;
let client: PartnerClient<'sandbox'>;
const retries: RetryEvent[] = [];

beforeAll(async () => {
  root = clusterRoot();
  primary = await startPrimary(root);
  await createDatabaseIfMissing(primary.adminUrl, DATABASE);
  // The service migrates the empty database as it starts.
  service = await startService(await serviceEnv({ DATABASE_URL: primary.urlFor(DATABASE) }));
  client = sandboxClient(service.origin, await createCredential(service.env), { onRetry: (event) => retries.push(event) });
}, 120_000);

afterAll(async () => {
  await service?.stop();
  await (restarted ?? primary)?.stop().catch(() => undefined);
  if (root) removeRoot(root);
});

test('calls made while PostgreSQL is down wait out the 503s and succeed once it is back', async () => {
  await client.upsertEntitlement({ body: { subscriber_id: 'outage-1', product: 'audioapp', status: 'active', plan: 'audio_standard' } });
  // (The catalog is served from memory: the calls below are those that need the database.)
  expect(await client.getSubscriberStatus({ path: { id: 'outage-1' } })).toMatchObject({ subscriber_id: 'outage-1' });

  await primary.stop();
  // Without retries: the contract's 503, with its Retry-After and request id.
  const refused = await client.getSubscriberStatus({ path: { id: 'outage-1' } }, { retry: { maxRetries: 0 } }).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(ApiError);
  expect(refused).toMatchObject({ status: 503, error: 'temporarily_unavailable', retryAfter: expect.any(Number), requestId: expect.any(String) });

  // With them: a read and a write (503 is retried for any method: the service did not act) are sent during the outage…
  const started = Date.now();
  const read = client.getReadingProgress({ path: { id: 'outage-1' } });
  const write = client.upsertEntitlement({ body: { subscriber_id: 'outage-2', product: 'textapp', status: 'active' } });
  await waitFor(() => retries.filter((event) => event.reason === 'unavailable').length >= 2, 'both calls to be refused with 503');

  // …and PostgreSQL comes back on the same port while they wait.
  restarted = await startPostgresServer({
    dataDir: join(root, 'primary'),
    port: primary.port,
    user: 'postgres',
    password: primary.password,
    flags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off'],
  });
  await expect(read).resolves.toMatchObject({ subscriber_id: 'outage-1', novels: [] });
  await expect(write).resolves.toMatchObject({ ok: true });

  const waits = retries.filter((event) => event.reason === 'unavailable');
  for (const event of waits) {
    expect(event).toMatchObject({ status: 503, retryAfter: expect.any(Number), requestId: expect.any(String) });
    expect(event.delayMs).toBeGreaterThanOrEqual(event.retryAfter! * 1000);
  }
  expect(new Set(waits.map((event) => event.operationId))).toEqual(new Set(['sandboxGetReadingProgress', 'upsertEntitlement']));
  expect(Date.now() - started).toBeGreaterThanOrEqual(waits[0].retryAfter! * 1000);
  expect(await client.getSubscriberStatus({ path: { id: 'outage-2' } })).toMatchObject({ subscriber_id: 'outage-2' });
}, 90_000);
