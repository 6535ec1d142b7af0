import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createDatabaseIfMissing } from '../../src/database/database-location.js';
import { freePort } from '../../src/shared/net/free-port.js';
import { baseBackup, clusterRoot, removeRoot, startArchivingPrimary, startFromBackup, type Cluster } from '../support/clusters.js';
import { buildOnce, runNode, startService } from '../support/processes.js';

/**
 * Issue 38, item 8: the point-in-time recovery docs/operations.md describes, done for real.
 * Both tests archive the WAL, take a full backup, create a partner before a moment and one
 * after with the service running, restore to that moment, and start the service on the
 * restored database: it answers the first partner's credential and not the second's.
 *
 * - Always: the embedded binaries (initdb, pg_ctl, postgres only), `cp` as archive and
 *   restore command, a base backup with pg_backup_start()/pg_backup_stop().
 * - Where installed: pgBackRest on Debian's PostgreSQL (pgBackRest 2.45 does not know the
 *   embedded PostgreSQL 18), as the runbook does it.
 */
const SECRET = 'Zx8Qm2vL0aR7tK4pW9cE1yH6uJ3nB5dF-pitr';
const asRoot = process.getuid?.() === 0;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Credential {
  client_id: string;
  client_secret: string;
}
interface Writes {
  before: Credential;
  after: Credential;
  /** The primary's clock between the two partners' writes, as recovery_target_time takes it. */
  moment: string;
}

async function createPartner(databaseUrl: string, name: string): Promise<Credential> {
  const run = runNode('dist/src/cli.js', ['partner:create', '--name', name], { DATABASE_URL: databaseUrl, SERVER_SECRET: SECRET, LOG_LEVEL: 'silent' });
  let stdout = '';
  run.child.stdout!.on('data', (chunk) => (stdout += chunk));
  expect(await run.exit()).toBe(0);
  return JSON.parse(stdout) as Credential;
}

/** Runs `use` with the service started on `databaseUrl` (it migrates the database first). */
async function withService<T>(databaseUrl: string, use: (origin: string) => Promise<T>): Promise<T> {
  const service = await startService({ DATABASE_URL: databaseUrl, SERVER_SECRET: SECRET, LOG_LEVEL: 'warn' });
  try {
    return await use(service.origin);
  } finally {
    service.child.kill('SIGTERM');
    await service.exit();
  }
}

/** The token endpoint's answer to each credential. */
async function tokenStatuses(origin: string, credentials: Record<string, Credential>): Promise<Record<string, number>> {
  const statuses: Record<string, number> = {};
  for (const [name, credential] of Object.entries(credentials)) {
    const response = await fetch(`${origin}/platform/v1/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', ...credential }),
    });
    statuses[name] = response.status;
  }
  return statuses;
}

/**
 * On the archiving primary, after the base backup: the service migrates the database and
 * serves a partner created before the moment and one after; then the WAL segment holding
 * them is finished (pg_switch_wal) and waited for in the archive.
 */
async function writeAroundAMoment(databaseUrl: string): Promise<Writes> {
  const writes = await withService(databaseUrl, async (origin) => {
    const before = await createPartner(databaseUrl, 'Before the moment');
    const moment = await query<{ now: string }>(databaseUrl, 'SELECT clock_timestamp()::text AS now');
    await sleep(200);
    const after = await createPartner(databaseUrl, 'After the moment');
    expect(await tokenStatuses(origin, { before, after })).toEqual({ before: 200, after: 200 });
    return { before, after, moment: moment[0].now };
  });
  const [{ segment }] = await query<{ segment: string }>(databaseUrl, 'SELECT pg_walfile_name(pg_switch_wal()) AS segment');
  for (let archived = ''; archived < segment; await sleep(200))
    [{ archived }] = await query<{ archived: string }>(databaseUrl, `SELECT coalesce(last_archived_wal, '') AS archived FROM pg_stat_archiver`);
  return writes;
}

async function query<Row extends object>(databaseUrl: string, sql: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<Row>(sql)).rows;
  } finally {
    await client.end();
  }
}

/**
 * The restored cluster once promoted: it holds the partners of the moment only, and the
 * service started on it issues a token to the first and refuses the second. Answers how
 * long the replay and promotion took from `restoredAt`.
 */
async function expectTheMomentServed(databaseUrl: string, writes: Writes, restoredAt: number): Promise<number> {
  for (let inRecovery = true; inRecovery; await sleep(200))
    [{ inRecovery }] = await query<{ inRecovery: boolean }>(databaseUrl, 'SELECT pg_is_in_recovery() AS "inRecovery"');
  const promotedIn = Date.now() - restoredAt;
  const partners = await query<{ name: string }>(databaseUrl, 'SELECT name FROM partners ORDER BY name');
  expect(partners.map((row) => row.name)).toEqual(['Before the moment']);
  expect(await withService(databaseUrl, (origin) => tokenStatuses(origin, { before: writes.before, after: writes.after }))).toEqual({
    before: 200,
    after: 401,
  });
  return promotedIn;
}

it('restores a base backup and the archived WAL of the embedded binaries to a moment between two writes', async () => {
  buildOnce();
  const root = clusterRoot();
  const started: Cluster[] = [];
  try {
    const primary = await startArchivingPrimary(root);
    started.push(primary);
    await createDatabaseIfMissing(primary.adminUrl, 'partner_api');
    const backup = join(root, 'base-backup');
    await baseBackup(primary, backup);
    const writes = await writeAroundAMoment(primary.urlFor('partner_api'));
    await primary.stop();

    const restoredAt = Date.now();
    const restored = await startFromBackup(backup, primary.password, 'recovery.signal', {
      restore_command: `cp ${primary.archive}/%f %p`,
      recovery_target_time: writes.moment,
      recovery_target_action: 'promote',
    });
    started.push(restored);
    await expectTheMomentServed(restored.urlFor('partner_api'), writes, restoredAt);
  } finally {
    for (const cluster of started.reverse()) await cluster.stop();
    removeRoot(root);
  }
}, 180_000);

function debianPostgres(): string | undefined {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((version) => existsSync(join(root, version, 'bin', 'pg_ctl'))) : [];
  return versions.length ? join(root, versions.sort((a, b) => Number(b) - Number(a))[0], 'bin') : undefined;
}

const bin = debianPostgres();
const pgbackrest = spawnSync('pgbackrest', ['version'], { encoding: 'utf8' }).status === 0;
const missing = !bin ? 'Debian PostgreSQL (apt-get install postgresql)' : !pgbackrest ? 'pgbackrest (apt-get install pgbackrest)' : undefined;
if (missing) process.stderr.write(`SKIPPED point-in-time recovery: ${missing} is not installed\n`);
const withTools = missing ? it.skip : it;

/** Runs a PostgreSQL or pgBackRest command as the `postgres` user when root (they refuse root). */
function asPostgres(command: string, args: string[]): string {
  const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
  return execFileSync(file, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

withTools(
  "restores with pgBackRest on Debian's PostgreSQL to a moment between two writes",
  async () => {
    buildOnce();
    const work = mkdtempSync(join(tmpdir(), 'prl-pitr-'));
    chmodSync(work, 0o755);
    for (const dir of ['repo', 'sock', 'lock', 'log']) mkdirSync(join(work, dir));
    const port = await freePort();
    const restoredPort = await freePort();
    const config = join(work, 'pgbackrest.conf');
    writeFileSync(
      config,
      [
        '[global]',
        `repo1-path=${work}/repo`,
        'repo1-retention-full=2',
        `log-path=${work}/log`,
        `lock-path=${work}/lock`,
        'log-level-console=warn',
        'log-level-file=off',
        'start-fast=y',
        '[partner-api]',
        `pg1-path=${work}/pg`,
        `pg1-socket-path=${work}/sock`,
        `pg1-port=${port}`,
        '',
      ].join('\n'),
    );
    if (asRoot) execFileSync('chown', ['-R', 'postgres:postgres', work]);
    const backrest = (...args: string[]) => asPostgres('pgbackrest', [`--config=${config}`, '--stanza=partner-api', ...args]);
    const serverOptions = (listenPort: number, archive: boolean) =>
      [
        `-p ${listenPort} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${work}/sock`,
        archive
          ? `-c wal_level=replica -c archive_mode=on -c archive_timeout=60 -c "archive_command=pgbackrest --config=${config} --stanza=partner-api archive-push %p"`
          : '',
      ].join(' ');
    const started: string[] = [];
    const startServer = (dir: string, listenPort: number, archive: boolean) => {
      asPostgres(join(bin!, 'pg_ctl'), ['-D', dir, '-l', `${dir}.log`, '-o', serverOptions(listenPort, archive), '-w', 'start']);
      started.push(dir);
    };
    const stopServer = (dir: string) => asPostgres(join(bin!, 'pg_ctl'), ['-D', dir, '-m', 'fast', '-w', 'stop']);
    try {
      asPostgres(join(bin!, 'initdb'), ['-D', `${work}/pg`, '-U', 'postgres', '--auth=trust']);
      startServer(`${work}/pg`, port, true);
      const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
      await createDatabaseIfMissing(adminUrl, 'partner_api');
      backrest('stanza-create');
      backrest('backup', '--type=full');
      const writes = await writeAroundAMoment(`postgres://postgres@127.0.0.1:${port}/partner_api`);
      stopServer(`${work}/pg`);

      const restoredAt = Date.now();
      backrest(`--pg1-path=${work}/restored`, '--type=time', `--target=${writes.moment}`, '--target-action=promote', 'restore');
      startServer(`${work}/restored`, restoredPort, false);
      const promotedIn = await expectTheMomentServed(`postgres://postgres@127.0.0.1:${restoredPort}/partner_api`, writes, restoredAt);
      process.stderr.write(`point-in-time recovery: restored and promoted in ${promotedIn} ms\n`);
    } finally {
      for (const dir of started.reverse()) {
        try {
          stopServer(dir);
        } catch {
          // already stopped
        }
      }
      rmSync(work, { recursive: true, force: true });
    }
  },
  180_000,
);
