import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createServer } from 'node:net';
import pg from 'pg';
import { buildOnce, runNode, startService } from '../support/processes.js';
import { createTestDatabase } from '../support/test-database.js';
import { freePort } from '../../src/shared/net/free-port.js';
import { REACHABLE_HOME, clusterDirectory, startPostgresServer } from '../../src/database/postgres-server.js';

/**
 * `npm start` with nothing configured: the built service starts its own embedded
 * PostgreSQL under DATA_DIR/pg, serves, prints where the docs are, and stops cleanly.
 */
describe('starting the service with nothing configured', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'prl-start-'));
  // Run as root, PostgreSQL runs as the `postgres` user, which must be able to enter DATA_DIR.
  chmodSync(dataDir, 0o755);
  beforeAll(() => buildOnce());
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('comes up on the embedded database, then stops it on SIGTERM; the next start reuses it', async () => {
    for (let run = 0; run < 2; run++) {
      const port = await freePort();
      const service = runNode('dist/src/main.js', [], { PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'info' });
      try {
        await service.waitForOutput(/--sandbox/, 60_000);
        const ready = await fetch(`http://127.0.0.1:${port}/health/ready`);
        expect(ready.status).toBe(200);
      } finally {
        service.child.kill('SIGTERM');
      }
      expect(await service.exit()).toBe(0);
      const output = service.output();
      expect(output).toContain(`http://localhost:${port}/docs`);
      // The exact command, in this DATA_DIR, and last: Nest's route lines are debug detail,
      // and nothing but the start line (stdout, so it may arrive after the banner on
      // stderr) is logged between the banner and the first request.
      expect(output).toContain(`DATA_DIR=${dataDir} npm run --silent cli -- partner:create --name "My company" --sandbox`);
      expect(output).not.toContain('Mapped {');
      const afterBanner = output
        .slice(output.indexOf('listening on'))
        .split('\n')
        // Lifecycle lines are written synchronously and may pass the request's line at the stop.
        .filter((line) => line.startsWith('{') && !line.includes('"context":"Lifecycle"'));
      expect(afterBanner[0]).toContain('/health/ready');
      expect(existsSync(join(dataDir, 'pg', 'PG_VERSION'))).toBe(true);
      expect(existsSync(join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
    }
  });

  it('refuses to start in production without DATABASE_URL, in one line naming it', async () => {
    const service = runNode('dist/src/main.js', [], {
      NODE_ENV: 'production',
      SERVER_SECRET: 'Zx8Qm2vL0aR7tK4pW9cE1yH6uJ3nB5dF',
      PUBLIC_BASE_URL: 'https://api.example.com',
      DATA_DIR: dataDir,
    });
    expect(await service.exit()).toBe(1);
    expect(service.output().trim().split('\n')).toEqual([expect.stringContaining('DATABASE_URL is required when NODE_ENV=production')]);
  });

  it('reads .env from the working directory, under the variables already set', () => {
    const cwd = mkdtempSync(join(tmpdir(), 'prl-dotenv-'));
    writeFileSync(join(cwd, '.env'), `DATA_DIR=${dataDir}\nPORT=eighty\nSERVICES=chat\n`);
    const run = spawnSync(process.execPath, [resolve('dist/src/main.js')], { cwd, env: { PATH: process.env.PATH, PORT: '0' }, encoding: 'utf8' });
    rmSync(cwd, { recursive: true, force: true });
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toBe('Configuration error: SERVICES must list some of platform, reading, sandbox, kids, got "chat"');
  });

  it.each([
    ['PORT', (port: number) => ({ PORT: String(port) })],
    ['METRICS_PORT', (port: number) => ({ METRICS_PORT: String(port) })],
  ])('says in one line that the port %s names is taken, and exits 1', async (variable, env) => {
    const holder = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
    try {
      const service = runNode('dist/src/main.js', [], {
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        PORT: String(await freePort()),
        LOG_LEVEL: 'warn',
        ...env(port),
      });
      expect(await service.exit()).toBe(1);
      expect(service.output().trim().split('\n')).toEqual([
        `Configuration error: ${variable}=${port} is already in use by another process; stop it or choose another ${variable}`,
      ]);
      expect(existsSync(join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
    } finally {
      holder.close();
    }
  });

  it('in production, prints the cli:prod command and every variable it needs', async () => {
    const service = await startService({
      NODE_ENV: 'production',
      DATABASE_URL: await createTestDatabase(),
      SERVER_SECRET: 'Zx8Qm2vL0aR7tK4pW9cE1yH6uJ3nB5dF',
      PUBLIC_BASE_URL: 'https://api.example.com',
      LOG_LEVEL: 'warn',
    });
    service.child.kill('SIGTERM');
    expect(await service.exit()).toBe(0);
    expect(service.output()).toContain('npm run --silent cli:prod -- partner:create');
    expect(service.output()).toContain('(with the same DATABASE_URL, SERVER_SECRET and PUBLIC_BASE_URL as this service)');
  });

  it('refuses a bad configuration value with one line naming the variable', async () => {
    const service = runNode('dist/src/main.js', [], { PORT: 'eighty', DATA_DIR: dataDir });
    expect(await service.exit()).toBe(1);
    expect(service.output().trim().split('\n')).toEqual([expect.stringContaining('PORT')]);
  });
});

describe('the embedded database', () => {
  beforeAll(() => buildOnce());

  // PostgreSQL runs as another user only when the service runs as root (as CI does); for
  // any other user every directory it can write is one PostgreSQL can enter.
  const asRoot = process.getuid?.() === 0 ? it : it.skip;

  asRoot('starts when DATA_DIR lies under a directory only root can enter, and the CLI shares it', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'prl-private-')); // mode 700
    const dataDir = join(parent, 'data');
    const cluster = clusterDirectory(join(dataDir, 'pg'));
    try {
      const service = await startService({ DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
      expect(service.output()).toContain(`is kept in ${cluster}`);
      expect(cluster.startsWith(REACHABLE_HOME)).toBe(true);
      expect((await fetch(`${service.origin}/health/ready`)).status).toBe(200);
      expect(statSync(join(dataDir, 'database-password')).mode & 0o777).toBe(0o600);

      const cli = runNode('dist/src/cli.js', ['partner:create', '--name', 'Private', '--sandbox'], { DATA_DIR: dataDir });
      expect(await cli.exit()).toBe(0);
      expect(cli.output()).toContain('"client_id"');

      service.child.kill('SIGTERM');
      expect(await service.exit()).toBe(0);
    } finally {
      rmSync(parent, { recursive: true, force: true });
      rmSync(cluster, { recursive: true, force: true });
    }
  });

  it('moves a cluster made with the former fixed password to a random one kept in DATA_DIR', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'prl-legacy-'));
    chmodSync(dataDir, 0o755);
    try {
      const port = await freePort();
      const old = await startPostgresServer({ dataDir: join(dataDir, 'pg'), port, user: 'postgres', password: 'embedded' });
      await old.stop();

      const service = await startService({ DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
      const password = readFileSync(join(dataDir, 'database-password'), 'utf8').trim();
      expect(password).not.toBe('embedded');
      const pidFile = readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n');
      const login = (secret: string) => new pg.Client({ connectionString: `postgres://postgres:${secret}@127.0.0.1:${pidFile[3]}/postgres` });
      await expect(login('embedded').connect()).rejects.toMatchObject({ code: '28P01' });
      const client = login(password);
      await client.connect();
      await client.end();

      service.child.kill('SIGTERM');
      expect(await service.exit()).toBe(0);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('says in one line why it could not start, and exits non-zero', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'prl-broken-'));
    chmodSync(dataDir, 0o755);
    // A cluster directory PostgreSQL cannot use: a version file and nothing else.
    mkdirSync(join(dataDir, 'pg'), { mode: 0o700 });
    writeFileSync(join(dataDir, 'pg', 'PG_VERSION'), '18\n');
    try {
      const service = runNode('dist/src/main.js', [], { PORT: String(await freePort()), DATA_DIR: dataDir });
      expect(await service.exit()).toBe(1);
      expect(service.output().trim().split('\n')).toEqual([
        expect.stringMatching(/^The embedded PostgreSQL could not start: .*postgresql\.conf.*DATABASE_URL/),
      ]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
