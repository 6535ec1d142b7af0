import { join } from 'node:path';
import pg from 'pg';
import { ConfigError, type AppConfig } from '../config/app-config.js';
import { startEmbeddedPostgres } from './embedded-postgres.js';

export interface DatabaseLocation {
  url: string;
  /** Stops the embedded server if this process started it. */
  release(): Promise<void>;
}

const EMBEDDED_DATABASE = 'partner_api';

/** DATABASE_URL when set; otherwise the embedded server on DATA_DIR (DECISIONS 21). */
export async function locateDatabase(config: AppConfig, log: (line: string) => void): Promise<DatabaseLocation> {
  if (config.databaseUrl) return { url: config.databaseUrl, release: async () => undefined };
  // The embedded server lives and dies with one process on one disk: fine for a laptop and
  // for tests, data loss for a production deployment that quietly fell back to it.
  if (config.isProduction) throw new ConfigError('DATABASE_URL is required when NODE_ENV=production (the embedded database is for development and tests)');
  const server = await startEmbeddedPostgres(config.dataDir, log);
  await createDatabaseIfMissing(server.adminUrl, EMBEDDED_DATABASE);
  return { url: server.urlFor(EMBEDDED_DATABASE), release: () => server.stop() };
}

/**
 * One connection attempt before anything else is built, so that a wrong DATABASE_URL
 * reads as one line naming it, not as TypeORM's retries and stack traces.
 */
export async function checkDatabaseReachable(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
  } catch (error) {
    throw new ConfigError(unreachableReason(url, error as { code?: string; message?: string }));
  } finally {
    await client.end().catch(() => undefined);
  }
}

function unreachableReason(url: string, error: { code?: string; message?: string }): string {
  const { hostname, port, pathname, username } = new URL(url);
  const server = `${hostname}:${port || 5432}`;
  switch (error.code) {
    case '3D000':
      return `DATABASE_URL names database "${decodeURIComponent(pathname.slice(1))}", which does not exist on ${server}`;
    case '28P01':
    case '28000':
      return `DATABASE_URL: ${server} refused user "${decodeURIComponent(username)}" (wrong user or password)`;
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'ETIMEDOUT':
      return `DATABASE_URL: cannot reach ${server} (${error.code})`;
    default:
      return `DATABASE_URL: cannot connect to ${server}: ${error.message ?? error.code ?? 'unknown error'}`;
  }
}

/** Which database a process uses, for people: the password of DATABASE_URL is masked. */
export function describeDatabase(config: AppConfig): string {
  if (!config.databaseUrl) return `embedded PostgreSQL in ${join(config.dataDir, 'pg')} (DATA_DIR)`;
  const url = new URL(config.databaseUrl);
  if (url.password) url.password = '***';
  return `${url.toString()} (DATABASE_URL)`;
}

export async function createDatabaseIfMissing(adminUrl: string, name: string, template?: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) {
      const from = template ? ` TEMPLATE ${pg.escapeIdentifier(template)}` : '';
      await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}${from}`).catch((error: { code?: string }) => {
        // 42P04: created meanwhile by another process.
        if (error.code !== '42P04') throw error;
      });
    }
  } finally {
    await client.end();
  }
}
