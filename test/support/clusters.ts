import { randomBytes } from 'node:crypto';
import { appendFileSync, chmodSync, chownSync, cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startPostgresServer } from '../../src/database/postgres-server.js';
import { freePort } from '../../src/shared/net/free-port.js';

/**
 * PostgreSQL clusters of a test's own, from the embedded binaries (initdb, pg_ctl and
 * postgres only: no pg_basebackup, no pg_dump): a primary (archiving its WAL or not), a
 * file-level base backup taken between pg_backup_start() and pg_backup_stop(), started as a
 * streaming standby or recovered from the archive, and a restore from a copy of a stopped
 * cluster.
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

async function start(dataDir: string, password: string, flags: string[] = []): Promise<Cluster> {
  const port = await freePort();
  const server = await startPostgresServer({ dataDir, port, user: USER, password, flags: [...FLAGS, ...flags] });
  const adminUrl = `postgres://${USER}:${password}@127.0.0.1:${port}/postgres`;
  return {
    adminUrl,
    port,
    dataDir: server.dataDir,
    stop: server.stop,
    urlFor: (database) => `postgres://${USER}:${password}@127.0.0.1:${port}/${database}`,
  };
}

export async function startPrimary(root: string, flags: string[] = []): Promise<Cluster & { password: string }> {
  const password = randomBytes(12).toString('hex');
  return { ...(await start(join(root, 'primary'), password, flags)), password };
}

/**
 * A primary that archives each finished WAL segment into `archive` (a folder of `root`)
 * with `cp`, as `archive_command` does with any other store.
 */
export async function startArchivingPrimary(root: string): Promise<Cluster & { password: string; archive: string }> {
  const archive = join(root, 'wal-archive');
  mkdirSync(archive);
  // No segment is finished before the ownership below: a first try of the command cannot fail on it.
  const primary = await startPrimary(root, ['-c', 'archive_mode=on', '-c', `archive_command=test ! -f ${archive}/%f && cp %p ${archive}/%f`]);
  chownTree(archive, statSync(primary.dataDir));
  return { ...primary, archive };
}

/**
 * A base backup of the running `primary` into `target` with the low-level API: its files
 * copied between pg_backup_start() and pg_backup_stop(), without the WAL (a standby streams
 * it, a recovery reads it from the archive), and the backup_label and tablespace map that
 * pg_backup_stop() returns written into the copy. With archiving on, pg_backup_stop()
 * returns once the WAL the backup needs is archived.
 */
export async function baseBackup(primary: Cluster, target: string): Promise<void> {
  const session = new pg.Client({ connectionString: primary.adminUrl });
  await session.connect();
  try {
    await session.query(`SELECT pg_backup_start('base backup', true)`);
    copyCluster(primary.dataDir, target, { withWal: false });
    const { rows } = await session.query<{ labelfile: string; spcmapfile: string | null }>(`SELECT labelfile, spcmapfile FROM pg_backup_stop(true)`);
    writeFileSync(join(target, 'backup_label'), rows[0].labelfile);
    if (rows[0].spcmapfile) writeFileSync(join(target, 'tablespace_map'), rows[0].spcmapfile);
  } finally {
    await session.end();
  }
  chownTree(target, statSync(primary.dataDir));
}

/** A hot standby streaming from `primary`, made from a base backup of its files. */
export async function startStandby(root: string, primary: Cluster & { password: string }): Promise<Cluster> {
  const target = join(root, 'standby');
  await baseBackup(primary, target);
  return startFromBackup(target, primary.password, 'standby.signal', {
    primary_conninfo: `host=127.0.0.1 port=${primary.port} user=${USER} password=${primary.password}`,
  });
}

/**
 * Starts the base backup in `backup` in recovery: `signal` (standby.signal or
 * recovery.signal) and `settings` (written to postgresql.auto.conf) say what it recovers.
 * A recovery to a target answers while it replays; callers wait for `pg_is_in_recovery()`.
 */
export async function startFromBackup(
  backup: string,
  password: string,
  signal: 'standby.signal' | 'recovery.signal',
  settings: Record<string, string>,
): Promise<Cluster> {
  writeFileSync(join(backup, signal), '');
  // A configuration file's string: single quotes, a quote doubled, a backslash escaped.
  const quoted = (value: string) => `'${value.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
  const lines = Object.entries(settings).map(([name, value]) => `${name} = ${quoted(value)}\n`);
  appendFileSync(join(backup, 'postgresql.auto.conf'), lines.join(''));
  chownTree(backup, statSync(backup));
  return start(backup, password);
}

/** A new cluster from a copy of `stopped`'s files (a cold backup), started. */
export async function restoreCopy(root: string, stopped: Cluster & { password: string }, name: string): Promise<Cluster> {
  const target = join(root, name);
  // A stopped cluster's last checkpoint is in its WAL: the copy needs it.
  copyCluster(stopped.dataDir, target, { withWal: true });
  chownTree(target, statSync(stopped.dataDir));
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
function chownTree(path: string, { uid, gid }: { uid: number; gid: number }): void {
  chownSync(path, uid, gid);
  if (statSync(path).isDirectory()) for (const entry of readdirSync(path)) chownTree(join(path, entry), { uid, gid });
}

export function removeRoot(root: string): void {
  rmSync(root, { recursive: true, force: true });
}
