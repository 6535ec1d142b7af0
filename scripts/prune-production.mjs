// After `npm install --omit=dev --omit=optional`: removes from node_modules what a running
// service never loads (type declarations, source maps, documentation, TypeORM's browser
// build), then prints the size left. `npm run install:production` runs both steps.
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = 'node_modules';
const UNUSED_FILE = /\.(d\.[cm]?ts|map|md|markdown)$/i;
const UNUSED_DIRECTORIES = [join(ROOT, 'typeorm', 'browser')];

for (const directory of UNUSED_DIRECTORIES) rmSync(directory, { recursive: true, force: true });

let bytes = 0;
const walk = (directory) => {
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) walk(path);
    else if (entry.isFile() && UNUSED_FILE.test(entry.name) && entry.name !== 'package.json') rmSync(path);
    else if (entry.isFile()) bytes += statSync(path).size;
  }
};
walk(ROOT);
process.stdout.write(`production install: ${(bytes / 2 ** 20).toFixed(1)} MiB in ${ROOT}\n`);
