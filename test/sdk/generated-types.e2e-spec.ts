import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { OPERATIONS, PartnerClient, SDK_VERSION } from '../../sdk/src/index.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * The SDK's generated sources (sdk/src/generated/) are those of the document the service
 * serves now: a route, DTO or document change without `npm run sdk:types` fails here.
 */
let t: TestApp;
let document: { paths: Record<string, Record<string, { operationId: string }>> };

beforeAll(async () => {
  t = await startTestApp();
  document = (await t.inject({ method: 'GET', url: '/docs/openapi.json' })).json();
});
afterAll(() => t?.close());

test('sdk/src/generated is what the served document generates (else: npm run sdk:types)', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'sdk-types-'));
  writeFileSync(join(directory, 'openapi.json'), JSON.stringify(document));
  await promisify(execFile)(process.execPath, ['sdk/scripts/generate.mjs', join(directory, 'openapi.json'), '--out', join(directory, 'generated')]);
  for (const file of ['openapi.ts', 'operations.ts', 'errors.ts']) {
    expect({ file, contents: readFileSync(join(directory, 'generated', file), 'utf8') }).toEqual({
      file,
      contents: readFileSync(join('sdk/src/generated', file), 'utf8'),
    });
  }
}, 60_000);

test('every operation of the document is a PartnerClient method named by its operationId', () => {
  const ids = Object.values(document.paths).flatMap((methods) => Object.values(methods).map((operation) => operation.operationId));
  expect(ids.length).toBeGreaterThan(40);
  expect(Object.keys(OPERATIONS).sort()).toEqual([...ids].sort());
  for (const id of ids) expect({ id, method: typeof (PartnerClient.prototype as unknown as Record<string, unknown>)[id] }).toEqual({ id, method: 'function' });
});

test('a sandbox client sends reading operations to /sandbox/v1; a live client refuses sandbox operations', async () => {
  const sent: string[] = [];
  const recordingFetch: typeof fetch = async (input, init) => {
    sent.push(`${init?.method} ${String(input)}`);
    const body = String(input).endsWith('/oauth2/token') ? { access_token: 'token', token_type: 'Bearer', expires_in: 600, scope: '' } : { data: [] };
    return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  const options = { baseUrl: 'http://service.test/', clientSecret: 'secret', fetch: recordingFetch };
  const sandbox = new PartnerClient({ ...options, environment: 'sandbox', clientId: 'sbx_0123' });
  await sandbox.listCategories();
  await sandbox.sandboxListCategories();
  await sandbox.listWebhookEndpoints();
  const live = new PartnerClient({ ...options, environment: 'live', clientId: 'live_0123' });
  await live.listCategories();
  // A live client's type has no sandbox methods (test/sdk/types/); called anyway, they throw before sending.
  await expect((live as unknown as typeof sandbox).sandboxListCategories()).rejects.toThrow(/sandbox operation/);
  expect(sent).toEqual([
    'POST http://service.test/platform/v1/oauth2/token',
    'GET http://service.test/sandbox/v1/categories',
    'GET http://service.test/sandbox/v1/categories',
    'GET http://service.test/platform/v1/webhook-endpoints',
    'POST http://service.test/platform/v1/oauth2/token',
    'GET http://service.test/v1/categories',
  ]);
  expect(() => new PartnerClient({ ...options, environment: 'live', clientId: 'sbx_0123' })).toThrow(/sandbox credential/);
});

test('the SDK README names every operation (but the sandbox twins, which it describes together)', () => {
  const readme = readFileSync('sdk/README.md', 'utf8');
  const missing = Object.entries(OPERATIONS)
    .filter(([, spec]) => !('sandboxOnly' in spec))
    .map(([id]) => id)
    .filter((id) => !readme.includes(`\`${id}\``));
  expect(missing).toEqual([]);
});

test('the SDK version is its package version', () => {
  expect(SDK_VERSION).toBe(JSON.parse(readFileSync('sdk/package.json', 'utf8')).version);
});
