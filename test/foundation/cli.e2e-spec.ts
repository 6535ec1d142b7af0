import { execFile } from 'node:child_process';
import pg from 'pg';
import { SubscriberLogIds } from '../../src/shared/crypto/subscriber-log-ids.js';
import { createTestDatabase } from '../support/test-database.js';
import { buildOnce, runCli, runNode } from '../support/processes.js';

/** The operations CLI as an operator runs it: one JSON document on stdout per command. */
const CLI_SECRET = 'cli-test-secret-cli-test-secret-000';
let databaseUrl: string;
beforeAll(async () => {
  buildOnce();
  databaseUrl = await createTestDatabase();
});

const cli = (...args: string[]) => runCli(args, { DATABASE_URL: databaseUrl, SERVER_SECRET: CLI_SECRET });

test('partner:create, credential:create, plan:map, credential:revoke, keys:rotate and db:migrate each print one JSON document', async () => {
  const partner = await cli('partner:create', '--name', 'Acme Telecom', '--scopes', 'textapp:catalog:read platform:billing:read', '--sandbox');
  expect(partner.code).toBe(0);
  const created = JSON.parse(partner.stdout);
  expect(created).toEqual({
    partner_id: expect.any(String),
    client_id: expect.stringMatching(/^sbx_/),
    client_secret: expect.stringMatching(/^sk_sbx_.{43}$/),
    scopes: ['textapp:catalog:read', 'platform:billing:read'],
    environment: 'sandbox',
  });

  const credential = JSON.parse((await cli('credential:create', '--partner', created.partner_id)).stdout);
  expect(credential).toMatchObject({ partner_id: created.partner_id, environment: 'live' });
  expect(credential.scopes).toContain('kidsapp:engagement:read');

  expect(JSON.parse((await cli('plan:map', '--partner', created.partner_id, '--plan', 'gold', '--to', 'audio_early')).stdout)).toEqual({
    partner_id: created.partner_id,
    plan: 'gold',
    internal_plan: 'audio_early',
    entitlements_updated: 0,
  });
  expect(JSON.parse((await cli('credential:revoke', '--client-id', credential.client_id)).stdout)).toEqual({ client_id: credential.client_id, revoked: true });
  expect(JSON.parse((await cli('keys:rotate', '--issuer', 'kids')).stdout)).toMatchObject({ issuer: 'kids', kid: expect.any(String) });
  expect(JSON.parse((await cli('db:migrate')).stdout)).toMatchObject({ applied_now: [], schema: expect.arrayContaining(['Platform1763900000000']) });
});

test('subscriber:log-id prints the name the logs give a subscriber at that partner and environment', async () => {
  const partnerId = '5b7c6a2e-0f4e-4c1a-9a57-3f1d2c3b4a59';
  const live = JSON.parse((await cli('subscriber:log-id', '--partner', partnerId, '--subscriber', 'sub-42')).stdout);
  const sandbox = JSON.parse((await cli('subscriber:log-id', '--partner', partnerId, '--subscriber', 'sub-42', '--sandbox')).stdout);
  const logIds = new SubscriberLogIds(Buffer.from(CLI_SECRET, 'utf8'));
  expect(live).toEqual({ partner_id: partnerId, environment: 'live', log_id: logIds.of(partnerId, 'live', 'sub-42') });
  expect(sandbox).toEqual({ partner_id: partnerId, environment: 'sandbox', log_id: logIds.of(partnerId, 'sandbox', 'sub-42') });
  expect(live.log_id).toMatch(/^sub_[0-9a-f]{16}$/);
  expect(sandbox.log_id).not.toBe(live.log_id);
});

test.each([
  [['subscriber:log-id', '--partner', '5b7c6a2e-0f4e-4c1a-9a57-3f1d2c3b4a59', '--subscriber', 'a b'], '--subscriber must be 1 to 128 characters'],
  [['partner:create'], '--name is required'],
  [['partner:create', '--name', 'x', '--scopes', 'everything'], 'unknown scopes: everything'],
  [['credential:create', '--partner', 'not-a-uuid'], 'UUID'],
  [['plan:map', '--partner', '00000000-0000-0000-0000-000000000000', '--plan', 'p', '--to', 'platinum'], '--to must be one of'],
  [['credential:revoke', '--client-id', 'live_nobody'], 'no credential'],
  [['plan:map', '--partner', '00000000-0000-0000-0000-000000000000', '--plan', 'p', '--to', 'text_early'], 'no partner'],
  [['keys:rotate', '--issuer', 'moon'], '--issuer must be one of'],
  [['partner:create', '--colour', 'red'], 'unknown option --colour: options are --name, --scopes, --sandbox'],
  [['partner:create', '--nam', 'x'], 'unknown option --nam: did you mean --name?'],
  [['credential:revoke', '--clientid', 'x'], 'unknown option --clientid: did you mean --client-id?'],
  [['partner:creat', '--name', 'x'], 'unknown command partner:creat: did you mean partner:create?'],
  [['launch'], 'unknown command launch: the commands are partner:create,'],
])('%j is refused with exit code 2 and a message', async (args, message) => {
  const run = await cli(...args);
  expect(run.code).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.output).toContain(message);
});

test.each([[['--help']], [['-h']], [['help']]])('%j prints the usage on stdout and exits 0', async (args) => {
  const run = await cli(...args);
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('Usage: npm run cli -- <command> [options]');
  expect(run.stdout).toContain('partner:create --name NAME');
});

test('cli:prod names itself in its help and hints, not the development script', async () => {
  const npm = (...args: string[]) =>
    new Promise<{ stdout: string; stderr: string }>((resolve) =>
      execFile(
        'npm',
        ['run', '--silent', 'cli:prod', '--', ...args],
        { env: { PATH: process.env.PATH, HOME: process.env.HOME, ENV_FILE: 'none' } },
        (_error, stdout, stderr) => resolve({ stdout, stderr }),
      ),
    );
  const help = await npm('--help');
  expect(help.stdout).toContain('Usage: npm run cli:prod -- <command> [options]');
  expect(help.stdout).not.toContain('npm run cli --');
  expect((await npm('keys:rotate', '--help')).stdout).toMatch(/^Usage: npm run cli:prod -- keys:rotate /);
  expect((await npm('launch')).stderr).toContain('(npm run cli:prod -- --help)');
});

test("<command> --help prints that command's usage and exits 0 without touching the database", async () => {
  const run = await cli('plan:map', '--help');
  expect(run.code).toBe(0);
  expect(run.stdout).toBe(
    `Usage: npm run cli -- plan:map --partner ID --plan NAME --to INTERNAL_PLAN   map a partner plan (text_standard, text_early, audio_standard, audio_early, kids_standard)\n`,
  );
  expect(run.output).not.toContain('Database:');
});

test('says on stderr which database it uses, with the password masked', async () => {
  const run = await cli('db:migrate');
  expect(run.code).toBe(0);
  const masked = new URL(databaseUrl);
  masked.password = '***';
  expect(run.output).toContain(`Database: ${masked} (DATABASE_URL)`);
  expect(run.output).not.toContain(new URL(databaseUrl).password + '@');
  expect(JSON.parse(run.stdout)).toMatchObject({ applied_now: [] });
});

describe('before it connects (issue 27, item 3)', () => {
  const unreachable = 'postgres://postgres@127.0.0.1:9/partner_api';
  const run = async (env: Record<string, string>, ...args: string[]) => {
    const process = runNode('dist/src/cli.js', args, { SERVER_SECRET: 'cli-test-secret-cli-test-secret-000', LOG_LEVEL: 'silent', ...env });
    let stdout = '';
    process.child.stdout!.on('data', (chunk) => (stdout += chunk));
    const code = await process.exit();
    return { code, stdout, lines: process.output().trim().split('\n') };
  };

  it.each([
    [['partner:create'], '--name is required'],
    [['credential:create', '--partner', 'not-a-uuid'], 'UUID'],
    [['plan:map', '--partner', '00000000-0000-0000-0000-000000000000', '--plan', 'p', '--to', 'platinum'], '--to must be one of'],
    [['catalog:import', '/nowhere/manifest.json'], 'cannot read /nowhere/manifest.json'],
    [['kids:import', '/nowhere/sessions.ndjson', '--partner', '00000000-0000-0000-0000-000000000000'], 'cannot read'],
  ])('checks %j and refuses it without trying the database', async (args, message) => {
    const result = await run({ DATABASE_URL: unreachable }, ...args);
    expect({ code: result.code, lines: result.lines }).toEqual({ code: 2, lines: [expect.stringContaining(message)] });
  });

  it('says in one line that the database DATABASE_URL names does not exist', async () => {
    const wrongName = Object.assign(new URL(databaseUrl), { pathname: '/no_such_database' }).toString();
    const result = await run({ DATABASE_URL: wrongName }, 'partner:create', '--name', 'x');
    expect(result.code).toBe(2);
    expect(result.lines.filter((line) => !line.startsWith('Database:'))).toEqual([
      expect.stringMatching(/DATABASE_URL names database "no_such_database", which does not exist on /),
    ]);
  });

  it('says in one line that the server cannot be reached', async () => {
    const result = await run({ DATABASE_URL: unreachable }, 'partner:create', '--name', 'x');
    expect(result.code).toBe(2);
    expect(result.lines.filter((line) => !line.startsWith('Database:'))).toEqual([expect.stringContaining('DATABASE_URL: cannot reach 127.0.0.1:9')]);
  });

  it('in production refuses to run without DATABASE_URL, and cli:prod is production unless NODE_ENV says otherwise', async () => {
    const production = { PUBLIC_BASE_URL: 'https://api.example.com', SERVER_SECRET: 'Zx8Qm2vL0aR7tK4pW9cE1yH6uJ3nB5dF-cli' };
    const result = await run({ NODE_ENV: 'production', ...production }, 'partner:create', '--name', 'x');
    expect(result.code).toBe(2);
    expect(result.lines.at(-1)).toContain('DATABASE_URL is required when NODE_ENV=production');
    const npm = await new Promise<{ code: number; output: string }>((resolve) =>
      execFile(
        'npm',
        ['run', '--silent', 'cli:prod', '--', 'partner:create', '--name', 'x'],
        { env: { PATH: process.env.PATH, HOME: process.env.HOME, ENV_FILE: 'none', ...production } },
        (error, stdout, stderr) => resolve({ code: (error as { code?: number } | null)?.code ?? 0, output: stdout + stderr }),
      ),
    );
    expect(npm.code).toBe(2);
    expect(npm.output).toContain('DATABASE_URL is required when NODE_ENV=production');
  });
});

test('db:migrate reports the migrations it applied to an empty database', async () => {
  const admin = new pg.Client({ connectionString: process.env.TEST_PG_ADMIN_URL });
  await admin.connect();
  const name = `prl_cli_empty_${Date.now().toString(36)}`;
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const empty = Object.assign(new URL(databaseUrl), { pathname: `/${name}` }).toString();
  const run = runNode('dist/src/cli.js', ['db:migrate'], { DATABASE_URL: empty, SERVER_SECRET: 'cli-test-secret-cli-test-secret-000', LOG_LEVEL: 'silent' });
  let stdout = '';
  run.child.stdout!.on('data', (chunk) => (stdout += chunk));
  expect(await run.exit()).toBe(0);
  const { applied_now: appliedNow, schema } = JSON.parse(stdout);
  expect(appliedNow).toEqual(schema);
  expect(appliedNow.length).toBeGreaterThan(10);
});
