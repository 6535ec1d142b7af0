import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, cpSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startPostgresServer } from '../../src/database/postgres-server.js';
import { freePort } from '../../src/shared/net/free-port.js';

/**
 * PostgreSQL clusters of a test's own, from the embedded binaries (initdb, pg_ctl and
 * postgres only: no pg_basebackup, no pg_dump): a primary, a streaming standby made from a
 * file-level base backup taken between pg_backup_start() and pg_backup_stop(), and a
 * restore from a copy of a stopped cluster.
 */
export interface Cluster {
  adminUrl: string;
  port: number;
  dataDir: string;
  stop(): Promise<void>;
  urlFor(database: string): string;
}

const USER = 'postgres';
const FLAGS = ['-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'wal_keep_size=128MB', '-c', 'max_connections=100'];

export function clusterRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'prl-clusters-'));
  // Run as root, the server runs as the `postgres` user, who must enter the directory.
  chmodSync(root, 0o755);
  return root;
}

async function start(dataDir: string, password: string): Promise<Cluster> {
  const port = await freePort();
  const server = await startPostgresServer({ dataDir, port, user: USER, password, flags: FLAGS });
  const adminUrl = `postgres://${USER}:${password}@127.0.0.1:${port}/postgres`;
  return {
    adminUrl,
    port,
    dataDir: server.dataDir,
    stop: server.stop,
    urlFor: (database) => `postgres://${USER}:${password}@127.0.0.1:${port}/${database}`,
  };
}

export async function startPrimary(root: string): Promise<Cluster & { password: string }> {
  const password = randomBytes(12).toString('hex');
  return { ...(await start(join(root, 'primary'), password)), password };
}

/** A hot standby streaming from `primary`, made from a base backup of its files. */
export async function startStandby(root: string, primary: Cluster & { password: string }): Promise<Cluster> {
  const target = join(root, 'standby');
  const session = new pg.Client({ connectionString: primary.adminUrl });
  await session.connect();
  try {
    await session.query(`SELECT pg_backup_start('standby', true)`);
    // Its WAL streams from the primary from the backup's start on.
    copyCluster(primary.dataDir, target, { withWal: false });
    const { rows } = await session.query<{ labelfile: string }>(`SELECT labelfile FROM pg_backup_stop(true)`);
    writeFileSync(join(target, 'backup_label'), rows[0].labelfile);
  } finally {
    await session.end();
  }
  writeFileSync(join(target, 'standby.signal'), '');
  appendFileSync(join(target, 'postgresql.auto.conf'), `primary_conninfo = 'host=127.0.0.1 port=${primary.port} user=${USER} password=${primary.password}'\n`);
  ownLikeSource(primary.dataDir, target);
  return start(target, primary.password);
}

/** A new cluster from a copy of `stopped`'s files (a cold backup), started. */
export async function restoreCopy(root: string, stopped: Cluster & { password: string }, name: string): Promise<Cluster> {
  const target = join(root, name);
  // A stopped cluster's last checkpoint is in its WAL: the copy needs it.
  copyCluster(stopped.dataDir, target, { withWal: true });
  ownLikeSource(stopped.dataDir, target);
  return start(target, stopped.password);
}

/** The cluster's files, without what belongs to the running server or is rebuilt at start. */
function copyCluster(source: string, target: string, { withWal }: { withWal: boolean }): void {
  const skipped = new Set(['postmaster.pid', 'postmaster.opts']);
  cpSync(source, target, {
    recursive: true,
    filter: (path) => {
      const name = path.slice(source.length + 1);
      return !skipped.has(name) && (withWal || !/^pg_wal\/.+/.test(name)) && !/^pg_replslot\/.+/.test(name);
    },
  });
  chmodSync(target, 0o700);
}

/** The copy belongs to the cluster's owner (the `postgres` system user when the tests run as root). */
function ownLikeSource(source: string, target: string): void {
  const { uid, gid } = statSync(source);
  const walk = (path: string) => {
    chownSync(path, uid, gid);
    if (statSync(path).isDirectory()) for (const entry of readdirSync(path)) walk(join(path, entry));
  };
  walk(target);
}

export function removeRoot(root: string): void {
  rmSync(root, { recursive: true, force: true });
}
