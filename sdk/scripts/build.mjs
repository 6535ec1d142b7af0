// Plain Node on purpose: it runs the TypeScript compiler of the repository (or of the package's own install).
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `npm run build` (and `npm pack`, through prepack): dist/ from src/, ESM with .d.ts, emptied first. */
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
rmSync(join(root, 'dist'), { recursive: true, force: true });
const build = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json')], { stdio: 'inherit' });
process.exit(build.status ?? 1);
