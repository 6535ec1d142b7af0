import { rmSync } from 'node:fs';
import pg from 'pg';

export default async function globalTeardown() {
  const server = globalThis.__TEST_POSTGRES__;
  if (server) {
    await server.stop();
    // Two places when the cluster had to live outside the temporary directory.
    for (const dir of [server.dataDir, globalThis.__TEST_POSTGRES_ROOT__]) rmSync(dir, { recursive: true, force: true });
    return;
  }
  // An external server: drop the databases this run created.
  const client = new pg.Client({ connectionString: process.env.TEST_PG_ADMIN_URL });
  await client.connect();
  const { rows } = await client.query(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`prl_%${process.env.TEST_PG_RUN_ID}%`]);
  for (const { datname } of rows) {
    await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(datname)} WITH (FORCE)`);
  }
  await client.end();
}
