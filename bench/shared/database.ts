import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../src/shared/net/free-port.js';
import { startPostgresServer } from '../../src/database/postgres-server.js';

/** The bench's own database: never the development one. */
export interface BenchDatabase {
  url: string;
  /** Where it runs, for the report. */
  description: string;
  /** Whether pg_stat_statements can be used to compare the SQL of both servers. */
  statementStats: boolean;
  /** The postmaster's pid when the bench started the server itself (its CPU is then measured too). */
  postmasterPid?: number;
  /** Drops the database (external server) or stops and deletes the embedded server. */
  dispose(): Promise<void>;
}

const log = (line: string) => process.stderr.write(`${line}\n`);

/**
 * A new database named prl_bench_<time> on DATABASE_URL's server when it is set (dropped at
 * the end), otherwise a fresh embedded PostgreSQL in a temporary directory (deleted at the
 * end). The embedded server preloads pg_stat_statements so the bench can show that both
 * servers run the same statements.
 */
export async function createBenchDatabase(): Promise<BenchDatabase> {
  const external = process.env.DATABASE_URL?.trim();
  const name = `prl_bench_${Date.now().toString(36)}`;
  if (external) {
    const admin = new pg.Client({ connectionString: external });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
    await admin.end();
    const url = withDatabase(external, name);
    const statementStats = await tryStatementStats(url);
    log(`bench: database ${name} created on DATABASE_URL's server`);
    return {
      url,
      description: `database ${name} on DATABASE_URL's server`,
      statementStats,
      async dispose() {
        const client = new pg.Client({ connectionString: external });
        await client.connect();
        await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
        await client.end();
      },
    };
  }
  const root = mkdtempSync(join(tmpdir(), 'prl-bench-pg-'));
  // Run as root, the server runs as the `postgres` user, who owns pg/ and must enter root.
  chmodSync(root, 0o755);
  const port = await freePort();
  log(`bench: starting an embedded PostgreSQL in ${root}`);
  const server = await startPostgresServer({
    dataDir: join(root, 'pg'),
    port,
    user: 'postgres',
    password: 'bench',
    flags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=200',
      '-c',
      'shared_buffers=512MB',
      '-c',
      'work_mem=16MB',
      '-c',
      'maintenance_work_mem=256MB',
      '-c',
      'max_wal_size=4GB',
      // Commits do not wait for the WAL flush: the bench measures the servers' CPU, not
      // the disk of a machine shared with other work. Both servers get the same setting.
      '-c',
      'synchronous_commit=off',
      '-c',
      'shared_preload_libraries=pg_stat_statements',
      '-c',
      'pg_stat_statements.max=5000',
    ],
    log,
  });
  const admin = new pg.Client({ connectionString: `postgres://postgres:bench@127.0.0.1:${port}/postgres` });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  await admin.end();
  const url = `postgres://postgres:bench@127.0.0.1:${port}/${name}`;
  const statementStats = await tryStatementStats(url);
  return {
    url,
    description: `embedded PostgreSQL (temporary directory), database ${name}`,
    statementStats,
    postmasterPid: Number(readFileSync(join(server.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]),
    async dispose() {
      await server.stop();
      for (const dir of [server.dataDir, root]) rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function tryStatementStats(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await client.query('SELECT pg_stat_statements_reset()');
    return true;
  } catch {
    return false;
  } finally {
    await client.end();
  }
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
