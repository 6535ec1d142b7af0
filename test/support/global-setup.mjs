// Plain ESM on purpose: Jest loads global setup outside its ESM TypeScript pipeline.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedDatabaseError, startPostgresServer } from '../../src/database/postgres-server.js';

/**
 * One PostgreSQL server for the whole run: DATABASE_URL's when set, else a real embedded
 * one in a temporary directory, so `npm test` needs no installed PostgreSQL. Test files
 * then create their own databases on it (test/support/test-database.ts).
 */
export default async function globalSetup() {
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
