import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../src/shared/net/free-port.js';
import { buildOnce, runNode, startService } from '../support/processes.js';

/**
 * Issue 38, item 8: the point-in-time recovery docs/operations.md describes, done for real
 * with pgBackRest on Debian's PostgreSQL (pgBackRest 2.45 does not know the embedded
 * PostgreSQL 18): archive, a full backup, a partner created before a moment and one after,
 * a restore to that moment, and the service started on the restored database answers the
 * first partner's credential and not the second's.
 */
const SECRET = 'Zx8Qm2vL0aR7tK4pW9cE1yH6uJ3nB5dF-pitr';
const asRoot = process.getuid?.() === 0;

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
  'restores the database to a moment between two writes, and the service serves the data of that moment',
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
    const admin = (listenPort: number, database = 'postgres') => new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${listenPort}/${database}` });
    const cli = async (databaseUrl: string, ...args: string[]) => {
      const run = runNode('dist/src/cli.js', args, { DATABASE_URL: databaseUrl, SERVER_SECRET: SECRET, LOG_LEVEL: 'silent' });
      let stdout = '';
      run.child.stdout!.on('data', (chunk) => (stdout += chunk));
      expect(await run.exit()).toBe(0);
      return JSON.parse(stdout) as { client_id: string; client_secret: string };
    };
    try {
      asPostgres(join(bin!, 'initdb'), ['-D', `${work}/pg`, '-U', 'postgres', '--auth=trust']);
      startServer(`${work}/pg`, port, true);
      const client = admin(port);
      await client.connect();
      await client.query('CREATE DATABASE partner_api');
      backrest('stanza-create');
      backrest('backup', '--type=full');
      const databaseUrl = `postgres://postgres@127.0.0.1:${port}/partner_api`;

      const before = await cli(databaseUrl, 'partner:create', '--name', 'Before the moment');
      const moment = (await client.query<{ now: string }>('SELECT clock_timestamp()::text AS now')).rows[0].now;
      await new Promise((resolve) => setTimeout(resolve, 200));
      const after = await cli(databaseUrl, 'partner:create', '--name', 'After the moment');
      // Close the WAL segment holding both writes and wait until it is archived.
      const segment = (await client.query<{ name: string }>('SELECT pg_walfile_name(pg_switch_wal()) AS name')).rows[0].name;
      for (let archived = ''; archived < segment; await new Promise((resolve) => setTimeout(resolve, 200)))
        archived = (await client.query<{ last: string | null }>('SELECT last_archived_wal AS last FROM pg_stat_archiver')).rows[0].last ?? '';
      await client.end();
      stopServer(`${work}/pg`);

      const restoredAt = Date.now();
      backrest(`--pg1-path=${work}/restored`, '--type=time', `--target=${moment}`, '--target-action=promote', 'restore');
      startServer(`${work}/restored`, restoredPort, false);
      const restored = admin(restoredPort, 'partner_api');
      await restored.connect();
      for (let inRecovery = true; inRecovery; await new Promise((resolve) => setTimeout(resolve, 200)))
        inRecovery = (await restored.query<{ r: boolean }>('SELECT pg_is_in_recovery() AS r')).rows[0].r;
      const names = (await restored.query<{ name: string }>('SELECT name FROM partners ORDER BY name')).rows.map((row) => row.name);
      await restored.end();
      process.stderr.write(`point-in-time recovery: restored and promoted in ${Date.now() - restoredAt} ms\n`);
      expect(names).toEqual(['Before the moment']);

      const service = await startService({
        DATABASE_URL: `postgres://postgres@127.0.0.1:${restoredPort}/partner_api`,
        SERVER_SECRET: SECRET,
        LOG_LEVEL: 'warn',
      });
      try {
        const token = (credential: { client_id: string; client_secret: string }) =>
          fetch(`${service.origin}/platform/v1/oauth2/token`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ grant_type: 'client_credentials', ...credential }),
          }).then((response) => response.status);
        expect({ before: await token(before), after: await token(after) }).toEqual({ before: 200, after: 401 });
      } finally {
        service.child.kill('SIGTERM');
        await service.exit();
      }
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
