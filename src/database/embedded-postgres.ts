import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { readOrCreateSecretFile } from '../config/secret-file.js';
import { freePort } from '../shared/net/free-port.js';
import { EmbeddedDatabaseError, clusterDirectory, startPostgresServer } from './postgres-server.js';

export { EmbeddedDatabaseError } from './postgres-server.js';

export interface EmbeddedDatabase {
  /** Connection string of the server's `postgres` database. */
  readonly adminUrl: string;
  urlFor(database: string): string;
  stop(): Promise<void>;
}

const USER = 'postgres';
// The password clusters were created with before it was random; replaced on their next start.
const LEGACY_PASSWORD = 'embedded';
const FLAGS = ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300'];

/**
 * Starts a real PostgreSQL server whose cluster lives in DATA_DIR/pg: created on first
 * start, reused afterwards. Its superuser password is random, created with the cluster
 * and kept in DATA_DIR/database-password (mode 600), so the service and the CLI on the
 * same DATA_DIR agree. When a server already runs on the cluster (the service is up while
 * the CLI runs, or a killed process left it behind), it is used as it is and left running.
 * Any failure becomes an EmbeddedDatabaseError of one line: cause and remedy.
 */
export async function startEmbeddedPostgres(dataDir: string, log: (line: string) => void = () => undefined): Promise<EmbeddedDatabase> {
  try {
    return await start(dataDir, log);
  } catch (error) {
    const cause = error instanceof Error ? error.message : String(error);
    throw new EmbeddedDatabaseError(
      `The embedded PostgreSQL could not start: ${cause.split('\n')[0]} (or set DATABASE_URL to use a PostgreSQL server of your own)`,
    );
  }
}

async function start(dataDir: string, log: (line: string) => void): Promise<EmbeddedDatabase> {
  const passwordFile = join(dataDir, 'database-password');
  const cluster = clusterDirectory(join(dataDir, 'pg'));
  const legacy = existsSync(join(cluster, 'PG_VERSION')) && !existsSync(passwordFile);
  const password = legacy ? LEGACY_PASSWORD : readOrCreateSecretFile(passwordFile);
  const running = runningServerPort(cluster);
  if (running) return handle(running, await login(running, password, passwordFile, cluster), async () => undefined);
  const port = await freePort();
  const server = await startPostgresServer({ dataDir: join(dataDir, 'pg'), port, user: USER, password, flags: FLAGS, log });
  try {
    return handle(port, await login(port, password, passwordFile, server.dataDir), () => server.stop());
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/**
 * Checks that `password` opens the server, and returns the password to use from now on:
 * a cluster still on the legacy password gets a random one, written to `passwordFile`.
 */
async function login(port: number, password: string, passwordFile: string, cluster: string): Promise<string> {
  const client = new pg.Client({ connectionString: url(port, password, 'postgres') });
  try {
    await client.connect();
  } catch (error) {
    if ((error as { code?: string }).code !== '28P01') throw error;
    const tried = password === LEGACY_PASSWORD ? `the former fixed password (no ${passwordFile})` : `the password in ${passwordFile}`;
    throw new EmbeddedDatabaseError(
      `${tried} does not open the cluster in ${cluster}: restore that file, or remove ${cluster} to start with an empty database`,
    );
  }
  try {
    if (password !== LEGACY_PASSWORD) return password;
    return await replaceLegacyPassword(client, passwordFile);
  } finally {
    await client.end();
  }
}

async function replaceLegacyPassword(client: pg.Client, passwordFile: string): Promise<string> {
  const staging = `${passwordFile}.new`;
  const password = readOrCreateSecretFile(staging);
  await client.query(`ALTER ROLE ${pg.escapeIdentifier(USER)} PASSWORD ${pg.escapeLiteral(password)}`);
  renameSync(staging, passwordFile);
  return password;
}

function url(port: number, password: string, database: string): string {
  return `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
}

function handle(port: number, password: string, stop: () => Promise<void>): EmbeddedDatabase {
  const urlFor = (database: string) => url(port, password, database);
  return { adminUrl: urlFor('postgres'), urlFor, stop };
}

/** The port of a live server on `dir`, read from its postmaster.pid (line 4). */
function runningServerPort(dir: string): number | undefined {
  const pidFile = join(dir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  return Number.isInteger(pid) && pid > 0 && isAlive(pid) && port > 0 ? port : undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
