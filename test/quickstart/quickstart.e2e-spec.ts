import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createTestDatabase } from '../support/test-database.js';
import { buildOnce, runNode, type ServiceProcess } from '../support/processes.js';
import { freePort } from '../../src/shared/net/free-port.js';

/**
 * `npm run quickstart` (examples/quickstart) against a started service: token, entitlement,
 * open, chapters, text, stream URL, audio download, playback position, backdated ending,
 * a verified webhook and the event feed, exactly as a partner would run it, through the
 * client generated from the OpenAPI document; it deletes the webhook endpoint it made.
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
  expect(output).toContain('Webhook endpoint registered for novel.finished and chapter.unlocked');
  expect(output).toMatch(/"events":\["novel.finished","chapter.unlocked"\]/);
  expect(output).toContain('Received novel.finished and verified its Standard Webhooks signature');
  expect(output).toMatch(/Read the same novel.finished from the event feed\s+\{"seq":\d+,"event":"novel.finished"/);
  expect(output).toMatch(/Advanced the clock to that instant: chapter 3 is released\s+\{"chapter":3,"status":"unlocked"\}/);
  expect(output).toMatch(
    /Received chapter.unlocked for chapter 3, verified, at the release instant\s+\{"occurred_at":"[^"]+","data":\{[^}]*"chapter_number":3/,
  );
  expect(output).toContain('Deleted the webhook endpoint');
  expect(output.trim().split('\n').at(-1)).toBe('Quickstart complete.');
  expect(await listOf(credential, 'webhook-endpoints')).toEqual([]);
  expect(await listOf(credential, 'test-clocks')).toEqual([]);
}, 120_000);

test('the quickstart names the URL it could not reach', async () => {
  const unreachable = `http://127.0.0.1:${await freePort()}`;
  const failure = await run('npm', ['run', '--silent', 'quickstart'], {
    env: { ...process.env, BASE_URL: unreachable, CLIENT_ID: 'sbx_unused', CLIENT_SECRET: 'unused' },
    timeout: 60_000,
  }).catch((error: { stderr: string; code: number }) => error);
  expect((failure as { code: number }).code).toBe(1);
  expect((failure as { stderr: string }).stderr).toContain(`POST ${unreachable}/platform/v1/oauth2/token failed`);
  expect((failure as { stderr: string }).stderr).toContain('BASE_URL');
}, 90_000);

/** What a credential's environment has left of a collection (webhook endpoints, test clocks). */
async function listOf(credential: { client_id: string; client_secret: string }, collection: string): Promise<unknown[]> {
  const base = `http://127.0.0.1:${env.PORT}/platform/v1`;
  const basic = Buffer.from(`${credential.client_id}:${credential.client_secret}`).toString('base64');
  const token = await fetch(`${base}/oauth2/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  const { access_token } = (await token.json()) as { access_token: string };
  const list = await fetch(`${base}/${collection}`, { headers: { authorization: `Bearer ${access_token}` } });
  return ((await list.json()) as { data: unknown[] }).data;
}
