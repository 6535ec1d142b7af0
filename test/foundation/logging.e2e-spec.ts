import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createTestDatabase } from '../support/test-database.js';
import { buildOnce, runNode } from '../support/processes.js';
import { freePort } from '../../src/shared/net/free-port.js';

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

/** Logs are JSON lines with a request id, and never carry a secret or a token. */
test('request logs are structured and free of secrets and tokens', async () => {
  buildOnce();
  const databaseUrl = await createTestDatabase();
  const secretEnv = { DATABASE_URL: databaseUrl, SERVER_SECRET: 'logging-test-secret-logging-test-0000' };
  const cli = runNode('dist/src/cli.js', ['partner:create', '--name', 'Logs'], secretEnv);
  let stdout = '';
  cli.child.stdout!.on('data', (chunk) => (stdout += chunk));
  expect(await cli.exit()).toBe(0);
  const credential = JSON.parse(stdout);

  let token = '';
  let basic = '';
  const port = await freePort();
  const service = runNode('dist/src/main.js', [], { ...secretEnv, PORT: String(port), LOG_LEVEL: 'info' });
  try {
    await service.waitForOutput(/Swagger UI/);
    const origin = `http://127.0.0.1:${port}`;
    basic = Buffer.from(`${credential.client_id}:${credential.client_secret}`).toString('base64');
    const tokenResponse = await fetch(`${origin}/platform/v1/oauth2/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    token = ((await tokenResponse.json()) as { access_token: string }).access_token;
    expect(token).toMatch(/^ey/);
    await fetch(`${origin}/platform/v1/subscriber/s1/status`, {
      headers: { authorization: `Bearer ${token}`, 'x-request-id': 'trace-me-1', traceparent: TRACEPARENT },
    });
    await fetch(`${origin}/platform/v1/subscriber/s1/status`, {
      headers: { authorization: `Bearer ${token}`, 'x-request-id': 'trace-me-2', traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01' },
    });
    await fetch(`${origin}/platform/v1/oauth2/token?client_secret=${encodeURIComponent(credential.client_secret)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&client_id=${credential.client_id}`,
    });
    await service.waitForOutput(/client_secret=\[REDACTED\]/);
    // The query parser decodes names, so an encoded name carries the secret just the same.
    await fetch(`${origin}/platform/v1/oauth2/token?client%5Fsecret=${encodeURIComponent(credential.client_secret)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&client_id=${credential.client_id}`,
    });
    await service.waitForOutput(/client%5Fsecret=\[REDACTED\]/);
  } finally {
    service.child.kill('SIGTERM');
    await service.exit();
  }
  const output = service.output();
  expect(output).not.toContain(credential.client_secret);
  expect(output).not.toContain(token);
  expect(output).not.toContain(basic);
  const requestLines = output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.reqId === 'trace-me-1');
  expect(requestLines.length).toBeGreaterThan(0);
  expect(requestLines[0]).toMatchObject({
    level: 'info',
    time: expect.any(String),
    client_id: credential.client_id,
    partner_id: credential.partner_id,
    trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
    parent_span_id: '00f067aa0ba902b7',
  });
  // The subscriber id in the path is logged as its keyed hash (DECISIONS 29).
  expect(requestLines[0].req.url).toMatch(/^\/platform\/v1\/subscriber\/sub_[0-9a-f]{16}\/status$/);
  expect(output).not.toContain('/subscriber/s1/');
  // An invalid traceparent (all-zero trace id) is ignored, not refused.
  const untraced = output
    .split('\n')
    .filter((line) => line.includes('"trace-me-2"'))
    .map((line) => JSON.parse(line));
  expect(untraced[0]).toMatchObject({ res: { statusCode: 200 } });
  expect(untraced[0]).not.toHaveProperty('trace_id');

  const entries = output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  // Every line says what happened in msg (a text in `context` says nothing to a log search).
  expect(entries.filter((entry) => typeof entry.msg !== 'string' || entry.msg === '')).toEqual([]);
  // A token request's line names the client id it presented, accepted or not.
  const tokenLines = entries.filter((entry) => (entry.req as { url?: string } | undefined)?.url?.startsWith('/platform/v1/oauth2/token'));
  expect(tokenLines.length).toBe(3);
  for (const line of tokenLines) expect(line.client_id).toBe(credential.client_id);
  // Lifecycle: the start with its configuration, the drain's beginning and end with counts, the exit.
  const lifecycle = entries.filter((entry) => entry.context === 'Lifecycle');
  expect(lifecycle.map((entry) => entry.msg)).toEqual(['service started', 'drain begun', 'drain finished', 'exiting']);
  // Each names the build: the version, the commit dist/ was built from, the Node that runs it.
  const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
  const commit = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8' }).trim();
  for (const line of lifecycle) expect(line).toMatchObject({ version, commit, node: process.version });
  expect(output).toContain(`Partner Reading and Listening API ${version} (${commit}, Node ${process.version}) listening on`);
  expect(lifecycle[0]).toMatchObject({ level: 'info', config: { database: expect.any(String), services: ['platform', 'reading', 'sandbox', 'kids'], port } });
  expect(lifecycle[1]).toMatchObject({ signal: 'SIGTERM', connections_open: expect.any(Number) });
  expect(lifecycle[2]).toMatchObject({ requests_finished: expect.any(Number), requests_refused: 0, duration_ms: expect.any(Number) });
  expect(lifecycle[3]).toMatchObject({ exit_code: 0 });
  expect(JSON.stringify(lifecycle)).not.toContain(secretEnv.SERVER_SECRET);
});
