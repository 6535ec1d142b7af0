import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createTestDatabase } from '../support/test-database.js';
import { buildOnce, runNode, type ServiceProcess } from '../support/processes.js';
import { freePort } from '../../src/shared/net/free-port.js';

/**
 * `npm run quickstart` (examples/quickstart) against a started service: token, entitlement,
 * open, chapters, text, stream URL, audio download, playback position, backdated ending
 * and a verified webhook, exactly as a partner would run it.
 */
const run = promisify(execFile);

let service: ServiceProcess;
let env: Record<string, string>;

beforeAll(async () => {
  buildOnce();
  const port = await freePort();
  env = { DATABASE_URL: await createTestDatabase(), SERVER_SECRET: 'quickstart-test-secret-quickstart-00', PORT: String(port), LOG_LEVEL: 'warn' };
  service = runNode('dist/src/main.js', [], env);
  await service.waitForOutput(/Swagger UI/, 60_000);
}, 90_000);

afterAll(async () => {
  service?.child.kill('SIGTERM');
  await service?.exit();
});

test('the quickstart runs every step against the sandbox and verifies the webhook', async () => {
  const cli = runNode('dist/src/cli.js', ['partner:create', '--name', 'Quickstart', '--sandbox'], env);
  let stdout = '';
  cli.child.stdout!.on('data', (chunk) => (stdout += chunk));
  expect(await cli.exit()).toBe(0);
  const credential = JSON.parse(stdout);

  const { stdout: output } = await run('npm', ['run', '--silent', 'quickstart'], {
    env: { ...process.env, BASE_URL: `http://127.0.0.1:${env.PORT}`, CLIENT_ID: credential.client_id, CLIENT_SECRET: credential.client_secret },
    timeout: 90_000,
  });
  expect(output).toContain('Downloaded the narration');
  expect(output).toContain('Received novel.finished and verified its Standard Webhooks signature');
  expect(output.trim().split('\n').at(-1)).toBe('Quickstart complete.');
}, 120_000);
