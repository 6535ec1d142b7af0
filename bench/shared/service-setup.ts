// What `npm run bench` and `npm run soak` both start from: their own database, migrated by
// starting the built service once, seeded, and the service's environment to start it with.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../../src/shared/net/free-port.js';
import { createBenchDatabase, type BenchDatabase } from './database.js';
import type { DataSize } from './options.js';
import { seed, type SeededData } from './seed.js';
import { startServer, type RunningServer } from './servers.js';

/** The repository (the bench runs from dist/bench/<room>/). */
export const ROOT = resolve(import.meta.dirname, '../../..');
export const SERVER_SECRET = 'bench-server-secret-bench-server-secret-0123';

export interface ServiceSetup {
  dataDir: string;
  database: BenchDatabase;
  data: SeededData;
  /** The environment the service runs with (production mode, rate limits out of the way). */
  serviceEnv: Record<string, string>;
  /** https://127.0.0.1:<port>: the token issuer and stream URLs name it. */
  publicBaseUrl: string;
  /** Starts the built service on its port with serviceEnv; it is stopped at the end. */
  startService(nodeFlags?: string[]): Promise<RunningServer>;
  /** Work to undo at the end, or on Ctrl-C (servers to stop, connections to close); last in, first out. */
  defer(undo: () => Promise<unknown>): void;
}

const log = (line: string) => process.stderr.write(`${line}\n`);

/**
 * Sets up a seeded database of `size`, runs `body` with it, then stops what `body` deferred
 * and removes the database and the data directory, also on Ctrl-C. `env` is added to the
 * service's environment (e.g. what the soak needs to deliver webhooks to loopback); the
 * service runs on `node` (a Node binary), else on the bench's own.
 */
export async function withSeededService<T>(size: DataSize, env: Record<string, string>, body: (setup: ServiceSetup) => Promise<T>, node?: string): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), 'prl-bench-data-'));
  const database = await createBenchDatabase();
  const undo: (() => Promise<unknown>)[] = [];
  const cleanup = async () => {
    for (const step of undo.splice(0).reverse()) await step().catch(() => undefined);
    await database.dispose().catch((error) => log(`bench: could not remove the database: ${error}`));
    rmSync(dataDir, { recursive: true, force: true });
  };
  const interrupted = () => void cleanup().then(() => process.exit(130));
  process.once('SIGINT', interrupted);
  try {
    const servicePort = await freePort();
    // https: production requires it (DECISIONS 21); it only names the token issuer and stream URLs here.
    const publicBaseUrl = `https://127.0.0.1:${servicePort}`;
    const serviceEnv = {
      DATABASE_URL: database.url,
      DATA_DIR: dataDir,
      NODE_ENV: 'production',
      SERVER_SECRET,
      PUBLIC_BASE_URL: publicBaseUrl,
      LOG_LEVEL: 'warn',
      // Production's least (the bench rotates no key; the first ones sign at once).
      KEY_ACTIVATION_DELAY_SECONDS: '300',
      // Many requests per credential per second: the bench measures work, not refusals.
      RATE_LIMIT_RPS: '1000000',
      RATE_LIMIT_BURST: '1000000',
      ...env,
    };
    const script = join(ROOT, 'dist/src/main.js');
    log('bench: starting the service once to apply the migrations');
    const migrating = await startServer({ name: 'service', script, env: serviceEnv, port: servicePort, node });
    await migrating.stop();
    const data = await seed(serviceEnv, size, join(ROOT, 'catalog/demo/audio'));
    const setup: ServiceSetup = {
      dataDir,
      database,
      data,
      serviceEnv,
      publicBaseUrl,
      defer: (step) => void undo.push(step),
      async startService(nodeFlags = []) {
        const service = await startServer({ name: 'service', script, env: serviceEnv, port: servicePort, nodeFlags, node });
        undo.push(() => service.stop());
        return service;
      },
    };
    return await body(setup);
  } finally {
    process.off('SIGINT', interrupted);
    await cleanup();
  }
}
