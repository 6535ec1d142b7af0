// Plain Node on purpose: it runs the TypeScript compiler of the repository (or of the package's own install).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, copyFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm run build` (and `npm pack`, through prepack), dist/ emptied first:
 *
 *   dist/esm/  ESM JavaScript and .d.ts, by the TypeScript compiler (sdk/tsconfig.json)
 *   dist/cjs/  the same JavaScript as CommonJS (each file transpiled from its ESM twin) and
 *              the same .d.ts, which its package.json ("type": "commonjs") makes CommonJS
 *              declarations for TypeScript, so `require` works from Node 20.0 and
 *              `module: node16` finds types for both conditions of the exports map
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const tsc = require.resolve('typescript/bin/tsc');
const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });
const build = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json')], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const ts = require('typescript');
const esm = join(dist, 'esm');
const cjs = join(dist, 'cjs');
for (const file of readdirSync(esm, { recursive: true, withFileTypes: true })) {
  if (!file.isFile()) continue;
  const from = join(file.parentPath ?? file.path, file.name);
  const to = join(cjs, relative(esm, from));
  mkdirSync(dirname(to), { recursive: true });
  if (file.name.endsWith('.d.ts')) copyFileSync(from, to);
  else if (file.name.endsWith('.js')) {
    const { outputText } = ts.transpileModule(readFileSync(from, 'utf8'), {
      fileName: file.name,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    });
    writeFileSync(to, outputText);
  }
}
writeFileSync(join(esm, 'package.json'), `${JSON.stringify({ type: 'module' })}\n`);
writeFileSync(join(cjs, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
