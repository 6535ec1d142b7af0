import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { createCredential, serviceEnv, startService, type Credential, type Service } from './sdk-test-kit.js';

/**
 * What partners install is what is tested: `npm pack` makes the SDK's tarball (building it
 * through prepack), an empty project installs it, type-checks examples/first-integration.ts
 * against the installed declarations and runs it against a started service, twice: the
 * second run reads the feed on from the first run's checkpoint.
 */
const run = promisify(execFile);
const ROOT = process.cwd();
const EXAMPLE = 'examples/first-integration.ts';
let work: string;
let project: string;
let service: Service;
let credential: Credential;
let packedFiles: string[];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'sdk-pack-'));
  const tarballs = join(work, 'tarballs');
  mkdirSync(tarballs);
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', tarballs], { cwd: join(ROOT, 'sdk'), timeout: 60_000 });
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  packedFiles = packed.files.map((file) => file.path).sort();

  // The SDK's dependencies come from this repository's node_modules, packed as they are, so that
  // the install needs no registry (--offline): the SDK's tarball itself is installed as a partner would.
  const dependencies = runtimeDependencies(join(ROOT, 'sdk'));
  if (dependencies.length) await run('npm', ['pack', '--ignore-scripts', '--pack-destination', tarballs, ...dependencies], { timeout: 60_000 });

  project = join(work, 'partner-app');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'partner-app', private: true, type: 'module' }));
  const tarballPaths = [join(tarballs, packed.filename), ...dependencies.map((path) => join(tarballs, tarballName(path)))];
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--cache', join(work, 'npm-cache'), ...tarballPaths], { cwd: project, timeout: 60_000 });

  service = await startService(await serviceEnv());
  credential = await createCredential(service.env);
}, 110_000);

afterAll(async () => {
  await service?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

test('the tarball holds the built ESM with its declarations, the README and package.json, and nothing else', () => {
  expect(packedFiles).toEqual(
    expect.arrayContaining(['README.md', 'package.json', 'dist/index.js', 'dist/index.d.ts', 'dist/generated/openapi.d.ts', 'dist/browser.js']),
  );
  expect(packedFiles.filter((path) => !/^dist\/.+\.(js|d\.ts)$/.test(path))).toEqual(['README.md', 'package.json']);
  const manifest = JSON.parse(readFileSync(join(project, 'node_modules/@partner-reading/sdk/package.json'), 'utf8'));
  expect(manifest).toMatchObject({ type: 'module', engines: { node: '>=20' } });
  expect(Object.keys(manifest.dependencies)).toEqual(['standardwebhooks']);
});

test(`${EXAMPLE} (under 40 lines) and the README's snippets type-check against the installed package; the example runs: token to verified webhook to feed`, async () => {
  const source = readFileSync(join(ROOT, EXAMPLE), 'utf8');
  expect(source.trimEnd().split('\n').length).toBeLessThan(40);
  // The repository's copy imports the SDK's sources; a partner's imports the package.
  const partnerSource = source.replace(/from '\.\.\/sdk\/src\/index\.js';.*$/m, "from '@partner-reading/sdk';");
  expect(partnerSource).toContain("from '@partner-reading/sdk';");
  writeFileSync(join(project, 'first-integration.ts'), partnerSource);
  const snippets = readmeSnippets();
  expect(snippets.length).toBeGreaterThan(20);
  snippets.forEach((snippet, index) => writeFileSync(join(project, `readme-${index + 1}.ts`), snippet));
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'es2023',
        module: 'nodenext',
        moduleResolution: 'nodenext',
        strict: true,
        outDir: 'out',
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules/@types')],
      },
      files: ['first-integration.ts', ...snippets.map((_, index) => `readme-${index + 1}.ts`)],
    }),
  );
  await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: project, timeout: 60_000 }).catch(
    (error: { stdout: string }) => {
      throw new Error(
        `the example or a README snippet (readme-N.ts: the Nth \`\`\`ts block of sdk/README.md) does not type-check against the installed package:\n${error.stdout}`,
      );
    },
  );

  const env = { ...process.env, NODE_OPTIONS: '', BASE_URL: service.origin, CLIENT_ID: credential.client_id, CLIENT_SECRET: credential.client_secret };
  const first = await run(process.execPath, ['out/first-integration.js'], { cwd: project, env, timeout: 60_000 });
  expect(first.stdout).toMatch(/^reading \S+ \d+\/\d+ unlocked stream http:\/\/\S+\/media\//m);
  expect(first.stdout).toMatch(/^webhook novel\.finished \S+ seq 1$/m);
  expect(first.stdout.match(/^feed .*$/gm)).toEqual([expect.stringMatching(/^feed 1 novel\.finished [0-9a-f-]{36}$/)]);
  expect(readFileSync(join(project, 'feed.seq'), 'utf8')).toBe('1\n');

  // Run again (a restart): its own event is seq 2, and the feed resumes after 1, without repeating it.
  const second = await run(process.execPath, ['out/first-integration.js'], { cwd: project, env, timeout: 60_000 });
  expect(second.stdout).toMatch(/^webhook novel\.finished \S+ seq 2$/m);
  expect(second.stdout.match(/^feed .*$/gm)).toEqual([expect.stringMatching(/^feed 2 novel\.finished /)]);
}, 100_000);

test('a browser build gets an error, not the client secret handling', async () => {
  const failure = await run(process.execPath, ['--conditions=browser', '--input-type=module', '-e', "await import('@partner-reading/sdk')"], {
    cwd: project,
  }).catch((error: { stderr: string }) => error);
  expect((failure as { stderr: string }).stderr).toContain('never in a browser');
  const { stdout } = await run(
    process.execPath,
    ['--input-type=module', '-e', "const sdk = await import('@partner-reading/sdk'); console.log(typeof sdk.PartnerClient, sdk.SDK_VERSION)"],
    {
      cwd: project,
    },
  );
  expect(stdout.trim()).toBe(`function ${JSON.parse(readFileSync(join(ROOT, 'sdk/package.json'), 'utf8')).version}`);
});

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
