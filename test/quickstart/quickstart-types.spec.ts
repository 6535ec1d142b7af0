import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

/**
 * The quickstart (examples/quickstart) is code partners copy: it compiles under the
 * strictest settings a partner's project may use (issue 37), `noUncheckedIndexedAccess`
 * and `exactOptionalPropertyTypes` included, with the SDK's sources it imports.
 */
const ROOT = resolve('.');
const run = promisify(execFile);

test('the quickstart compiles under strict, noUncheckedIndexedAccess and exactOptionalPropertyTypes', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'prl-quickstart-types-'));
  const compilerOptions = {
    target: 'es2023',
    lib: ['es2023'],
    module: 'nodenext',
    moduleResolution: 'nodenext',
    types: ['node'],
    typeRoots: [join(ROOT, 'node_modules/@types')],
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    noImplicitOverride: true,
    noImplicitReturns: true,
    noFallthroughCasesInSwitch: true,
    noUnusedLocals: true,
    noUnusedParameters: true,
    noEmit: true,
    skipLibCheck: true,
  };
  writeFileSync(join(directory, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: [join(ROOT, 'examples/quickstart/quickstart.ts')] }));
  const compiled = await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(directory, 'tsconfig.json')]).catch(
    (error: { stdout: string }) => error,
  );
  expect(compiled.stdout).toBe('');
}, 60_000);
