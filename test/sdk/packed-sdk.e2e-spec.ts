import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { text } from 'node:stream/consumers';
import { promisify } from 'node:util';
import { createCredential, finishANovel, sandboxClient, serviceEnv, startService, waitFor, type Credential, type Service } from './sdk-test-kit.js';

/**
 * What partners install is what is tested: `npm pack` makes the SDK's tarball (building it
 * through prepack) and a scratch project installs it offline. Below it, projects of each
 * kind a partner has load it and call a started service: plain ESM, plain CommonJS,
 * TypeScript with `module: node16` (CommonJS, the `require` types) and with
 * `moduleResolution: bundler`, the packed example under TypeScript's strictest settings,
 * and the edge entry in a Web-Crypto-only runtime (test/sdk/edge-runtime.mjs).
 */
const run = promisify(execFile);
const ROOT = process.cwd();
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const TYPE_MISTAKES = 'test/sdk/types/compile-errors.ts';
let work: string;
let project: string;
let service: Service;
let credential: Credential;
let packedFiles: string[];
let clientEnv: NodeJS.ProcessEnv;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sdk-pack-'));
  const tarballs = join(work, 'tarballs');
  mkdirSync(tarballs);
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', tarballs], { cwd: join(ROOT, 'sdk'), timeout: 60_000 });
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  packedFiles = packed!.files.map((file) => file.path).sort();

  // The SDK's dependencies come from this repository's node_modules, packed as they are, so that
  // the install needs no registry (--offline): the SDK's tarball itself is installed as a partner would.
  const dependencies = runtimeDependencies(join(ROOT, 'sdk'));
  if (dependencies.length) await run('npm', ['pack', '--ignore-scripts', '--pack-destination', tarballs, ...dependencies], { timeout: 60_000 });

  project = join(work, 'partner-app');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'partner-app', private: true, type: 'module' }));
  const tarballPaths = [join(tarballs, packed!.filename), ...dependencies.map((path) => join(tarballs, tarballName(path)))];
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--cache', join(work, 'npm-cache'), ...tarballPaths], { cwd: project, timeout: 60_000 });

  service = await startService(await serviceEnv());
  credential = await createCredential(service.env);
  clientEnv = { ...process.env, NODE_OPTIONS: '', BASE_URL: service.origin, CLIENT_ID: credential.client_id, CLIENT_SECRET: credential.client_secret };
}, 110_000);

afterAll(async () => {
  await service?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

test('the tarball holds the ESM and CommonJS builds with their declarations, the example, README, CHANGELOG and LICENSE', () => {
  expect(packedFiles).toEqual(
    expect.arrayContaining(['dist/esm/index.js', 'dist/esm/index.d.ts', 'dist/cjs/index.js', 'dist/cjs/index.d.ts', 'dist/esm/edge.js', 'dist/cjs/edge.d.ts']),
  );
  expect(packedFiles.filter((path) => !/^dist\/(esm|cjs)\/.+\.(js|d\.ts)$/.test(path))).toEqual([
    'CHANGELOG.md',
    'LICENSE',
    'README.md',
    'dist/cjs/package.json',
    'dist/esm/package.json',
    'examples/first-integration.ts',
    'package.json',
  ]);
  const manifest = JSON.parse(readFileSync(join(project, 'node_modules/@partner-reading/sdk/package.json'), 'utf8'));
  expect(manifest).toMatchObject({ type: 'module', engines: { node: '>=20.0.0' }, repository: { directory: 'sdk' } });
  expect(Object.keys(manifest.dependencies)).toEqual(['standardwebhooks']);
});

test('npm publish --dry-run is clean: no warning about the package, restricted access', async () => {
  const { stderr } = await run('npm', ['publish', '--dry-run', '--ignore-scripts'], { cwd: join(ROOT, 'sdk'), timeout: 60_000 });
  // Only the notice that nobody is logged in here (the product owner publishes): nothing corrected, nothing missing.
  const warnings = stderr.split('\n').filter((line) => /\bnpm (warn|error)\b/i.test(line) && !/requires you to be logged in/.test(line));
  expect(warnings).toEqual([]);
  expect(stderr).toMatch(/with tag latest and restricted access \(dry-run\)/);
}, 60_000);

test('plain ESM (import) and plain CommonJS (require) projects load the package and call the service', async () => {
  const esm = subproject('esm', 'module', {
    'main.js': `import { PartnerClient, ApiError, SDK_VERSION } from '@partner-reading/sdk';
import { verifyWebhook } from '@partner-reading/sdk/edge';
const sdk = new PartnerClient({ environment: 'sandbox', baseUrl: process.env.BASE_URL, clientId: process.env.CLIENT_ID, clientSecret: process.env.CLIENT_SECRET });
const { data } = await sdk.listCategories();
const write = await sdk.upsertEntitlement({ body: { subscriber_id: 'esm-1', product: 'textapp', status: 'active' } });
const gone = await sdk.deleteWebhookEndpoint({ path: { id: '00000000-0000-4000-8000-000000000000' } }).catch((error) => error);
console.log(SDK_VERSION, data.length > 0, write.ok, gone instanceof ApiError, gone.name, gone.error, typeof verifyWebhook);
`,
  });
  const cjs = subproject('cjs', 'commonjs', {
    'main.js': `const { PartnerClient, ApiError, SDK_VERSION } = require('@partner-reading/sdk');
const { verifyWebhook } = require('@partner-reading/sdk/edge');
(async () => {
  const sdk = new PartnerClient({ environment: 'sandbox', baseUrl: process.env.BASE_URL, clientId: process.env.CLIENT_ID, clientSecret: process.env.CLIENT_SECRET });
  const { data } = await sdk.listCategories();
  const write = await sdk.upsertEntitlement({ body: { subscriber_id: 'cjs-1', product: 'textapp', status: 'active' } });
  const gone = await sdk.deleteWebhookEndpoint({ path: { id: '00000000-0000-4000-8000-000000000000' } }).catch((error) => error);
  console.log(SDK_VERSION, data.length > 0, write.ok, gone instanceof ApiError, gone.name, gone.error, typeof verifyWebhook);
})();
`,
  });
  const version = JSON.parse(readFileSync(join(ROOT, 'sdk/package.json'), 'utf8')).version;
  for (const directory of [esm, cjs]) {
    const { stdout } = await run(process.execPath, ['main.js'], { cwd: directory, env: clientEnv, timeout: 30_000 });
    expect({ directory, stdout: stdout.trim() }).toEqual({ directory, stdout: `${version} true true true NotFoundError not_found function` });
  }
}, 60_000);

test('TypeScript projects with module node16 (CommonJS) and moduleResolution bundler type-check against the package, refuse the mistakes, and run', async () => {
  const mistakes = readFileSync(join(ROOT, TYPE_MISTAKES), 'utf8').replace(/from '\.\.\/\.\.\/\.\.\/sdk\/src\/index\.js';/, "from '@partner-reading/sdk';");
  expect(mistakes).toContain("from '@partner-reading/sdk';");
  const main = `import { PartnerClient, RateLimitError, type ErrorCode } from '@partner-reading/sdk';
import { verifyWebhook } from '@partner-reading/sdk/edge';
async function main(): Promise<void> {
  const sdk = new PartnerClient({ environment: 'sandbox', baseUrl: process.env.BASE_URL ?? '', clientId: process.env.CLIENT_ID ?? '', clientSecret: process.env.CLIENT_SECRET ?? '' });
  const clock = await sdk.createTestClock({ body: { frozen_time: new Date(Date.now() + 86_400_000).toISOString() } });
  const code: ErrorCode = 'rate_limited';
  const verified: Promise<unknown> = verifyWebhook('whsec_AAAA', '{}', new Headers());
  verified.catch(() => undefined);
  console.log(clock.id.length > 0, code, RateLimitError.name);
  await sdk.deleteTestClock({ path: { id: clock.id } });
}
void main();
`;
  const settings = { strict: true, outDir: 'out', types: ['node'], typeRoots: [join(ROOT, 'node_modules/@types')], skipLibCheck: false };
  const node16 = subproject('ts-node16', 'commonjs', { 'main.ts': main, 'compile-errors.ts': mistakes });
  writeFileSync(
    join(node16, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { ...settings, target: 'es2022', module: 'node16', moduleResolution: 'node16' },
      files: ['main.ts', 'compile-errors.ts'],
    }),
  );
  const bundler = subproject('ts-bundler', 'module', { 'main.ts': main, 'compile-errors.ts': mistakes });
  writeFileSync(
    join(bundler, 'tsconfig.json'),
    // The declarations were checked in the node16 project (the same files): skipped here to keep the run short.
    JSON.stringify({
      compilerOptions: { ...settings, target: 'es2022', module: 'preserve', moduleResolution: 'bundler', skipLibCheck: true },
      files: ['main.ts', 'compile-errors.ts'],
    }),
  );
  for (const directory of [node16, bundler]) {
    await run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: directory, timeout: 60_000 }).catch((error: { stdout: string }) => {
      throw new Error(`${directory} does not type-check:\n${error.stdout}`);
    });
    const { stdout } = await run(process.execPath, ['out/main.js'], { cwd: directory, env: clientEnv, timeout: 30_000 });
    expect({ directory, stdout: stdout.trim() }).toEqual({ directory, stdout: 'true rate_limited RateLimitError' });
  }
  // The node16 project is CommonJS: it got the require condition's types and code.
  expect(readFileSync(join(node16, 'out/main.js'), 'utf8')).toContain('require("@partner-reading/sdk")');
}, 90_000);

test('the edge entry, in a runtime with Web Crypto and fetch but no Node, calls the service and verifies a real delivery', async () => {
  const deliveries: { headers: IncomingHttpHeaders; body: string }[] = [];
  const receiver: Server = createServer(async (request, response) => {
    deliveries.push({ headers: request.headers, body: await text(request) });
    response.writeHead(204).end();
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  try {
    const client = sandboxClient(service.origin, credential);
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/edge`;
    const endpoint = await client.createWebhookEndpoint({ body: { url, events: ['novel.finished'] } });
    await finishANovel(client, `edge-${Date.now()}`);
    await waitFor(() => deliveries.length > 0, 'a delivery');
    const [delivery] = deliveries;
    await client.deleteWebhookEndpoint({ path: { id: endpoint.id } });

    const task = {
      origin: service.origin,
      clientId: credential.client_id,
      clientSecret: credential.client_secret,
      delivery: { secret: endpoint.secret, ...delivery },
    };
    const results = JSON.parse(await runWithStdin(['--experimental-vm-modules', join(ROOT, 'test/sdk/edge-runtime.mjs'), project], JSON.stringify(task)));
    expect(results).toMatchObject({
      globals: { process: 'undefined', require: 'undefined', Buffer: 'undefined' },
      categories: expect.any(Number),
      entitlement: true,
      missing: { name: 'NotFoundError', isApiError: true, status: 404 },
      webhook: { event: 'novel.finished', seq: Number(delivery!.headers['webhook-sequence']), event_id: delivery!.headers['webhook-id'] },
      forged: 'WebhookVerificationError',
    });
    expect(results.categories).toBeGreaterThan(0);
    expect(results.feed).toContain(Number(delivery!.headers['webhook-sequence']));
  } finally {
    receiver.close();
  }
}, 60_000);

test('the packed example (under 40 lines) passes the strictest compiler settings, the README snippets type-check; the example runs: token to verified webhook to feed', async () => {
  const source = readFileSync(join(project, 'node_modules/@partner-reading/sdk/examples/first-integration.ts'), 'utf8');
  expect(source).toBe(readFileSync(join(ROOT, 'sdk/examples/first-integration.ts'), 'utf8'));
  expect(source.trimEnd().split('\n').length).toBeLessThan(40);
  writeFileSync(join(project, 'first-integration.ts'), source);
  const snippets = readmeSnippets();
  expect(snippets.length).toBeGreaterThan(8);
  snippets.forEach((snippet, index) => writeFileSync(join(project, `readme-${index + 1}.ts`), snippet));
  const compilerOptions = { target: 'es2023', module: 'nodenext', moduleResolution: 'nodenext', strict: true, outDir: 'out', types: ['node'] };
  const strictest = {
    ...compilerOptions,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    noImplicitOverride: true,
    noPropertyAccessFromIndexSignature: true,
  };
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { ...strictest, typeRoots: [join(ROOT, 'node_modules/@types')] }, files: ['first-integration.ts'] }),
  );
  writeFileSync(
    join(project, 'tsconfig.readme.json'),
    JSON.stringify({
      compilerOptions: { ...compilerOptions, noEmit: true, typeRoots: [join(ROOT, 'node_modules/@types')] },
      files: snippets.map((_, index) => `readme-${index + 1}.ts`),
    }),
  );
  await run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: project, timeout: 60_000 }).catch((error: { stdout: string }) => {
    throw new Error(`the packed example does not pass the strictest settings:\n${error.stdout}`);
  });
  await run(process.execPath, [TSC, '-p', 'tsconfig.readme.json'], { cwd: project, timeout: 60_000 }).catch((error: { stdout: string }) => {
    throw new Error(
      `a README snippet (readme-N.ts: the Nth \`\`\`ts block of sdk/README.md) does not type-check against the installed package:\n${error.stdout}`,
    );
  });

  const first = await run(process.execPath, ['out/first-integration.js'], { cwd: project, env: clientEnv, timeout: 60_000 });
  expect(first.stdout).toMatch(/^reading \S+ \d+\/\d+ unlocked stream http:\/\/\S+\/media\//m);
  const seq = Number(/^webhook novel\.finished \S+ seq (\d+)$/m.exec(first.stdout)?.[1]);
  expect(seq).toBeGreaterThan(0);
  const feed = first.stdout.match(/^feed .*$/gm) ?? [];
  expect(feed.at(-1)).toMatch(new RegExp(`^feed ${seq} novel\\.finished [0-9a-f-]{36}$`));
  expect(readFileSync(join(project, 'feed.seq'), 'utf8')).toBe(`${seq}\n`);

  // Run again (a restart): its own event is the next seq, and the feed resumes after the first run's, without repeating it.
  const second = await run(process.execPath, ['out/first-integration.js'], { cwd: project, env: clientEnv, timeout: 60_000 });
  expect(second.stdout).toMatch(new RegExp(`^webhook novel\\.finished \\S+ seq ${seq + 1}$`, 'm'));
  expect(second.stdout.match(/^feed .*$/gm)).toEqual([expect.stringMatching(new RegExp(`^feed ${seq + 1} novel\\.finished `))]);
}, 100_000);

/** A directory under the project (whose node_modules it shares) with its own package.json "type" and files. */
function subproject(name: string, type: 'module' | 'commonjs', files: Record<string, string>): string {
  const directory = join(project, name);
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, 'package.json'), JSON.stringify({ name, private: true, type }));
  for (const [file, contents] of Object.entries(files)) writeFileSync(join(directory, file), contents);
  return directory;
}

/** Runs node with `args`, `input` on its stdin; resolves with its stdout, rejects with its stderr. */
function runWithStdin(args: string[], input: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, NODE_OPTIONS: '' }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => (code === 0 ? resolvePromise(stdout) : reject(new Error(`exited ${code}: ${stderr}`))));
    child.stdin.end(input);
  });
}

/**
 * The \`\`\`ts blocks of the SDK's README, each a module of its own; one that uses \`sdk\` without
 * making it gets it declared as a sandbox client, as the README's guide section says.
 */
function readmeSnippets(): string[] {
  const readme = readFileSync(join(ROOT, 'sdk/README.md'), 'utf8');
  return [...readme.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map(([, code]) => {
    const preamble = /\bsdk\./.test(code) && !/const sdk\b/.test(code) ? "declare const sdk: import('@partner-reading/sdk').PartnerClient<'sandbox'>;\n" : '';
    return `${preamble}${code}export {};\n`;
  });
}

/** The directories, in this repository's node_modules, of a package's runtime dependencies, transitively. */
function runtimeDependencies(packageDir: string, found = new Map<string, string>()): string[] {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  for (const name of Object.keys(manifest.dependencies ?? {})) {
    if (found.has(name)) continue;
    const dir = locate(name, packageDir);
    found.set(name, dir);
    runtimeDependencies(dir, found);
  }
  return [...found.values()];
}

/** Node's lookup: node_modules/<name> in the directory or the nearest ancestor that has it. */
function locate(name: string, from: string): string {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    try {
      readFileSync(join(candidate, 'package.json'));
      return candidate;
    } catch {
      if (dirname(dir) === dir) throw new Error(`${name} is not installed`);
    }
  }
}

/** The file name `npm pack` gives a package's tarball. */
function tarballName(dir: string): string {
  const { name, version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; version: string };
  return `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`;
}
