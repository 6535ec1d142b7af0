// Plain Node on purpose: it decides whether the TypeScript toolchain is needed at all.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `npm run build` compiles src/ into dist/ (Nest CLI with SWC). With `--if-stale`, as
 * `npm start` and `npm run cli` call it, it does nothing when dist/ is newer than every
 * input, so a CLI call on a built tree costs one directory walk instead of a compile.
 * dist/ is never emptied first (nest-cli.json), so a service already running from it
 * keeps its files while another command rebuilds.
 */
const STAMP = 'dist/.build-stamp';
/**
 * Files the running service or `npm run install:production` read, copied into dist/ so that
 * dist/, package.json and package-lock.json are all a runtime machine needs: the demo
 * catalog (loaded into an empty sandbox at start) and the pruning step of the install.
 */
const RUNTIME_FILES = ['catalog', 'scripts/prune-production.mjs'];
const INPUTS = ['src', 'package.json', 'tsconfig.json', 'tsconfig.build.json', 'nest-cli.json', '.swcrc', ...RUNTIME_FILES];

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs; // a deleted or renamed file changes its directory's mtime
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

const stampTime = existsSync(STAMP) ? statSync(STAMP).mtimeMs : 0;
if (process.argv.includes('--if-stale') && stampTime >= Math.max(...INPUTS.map(newestMtime))) process.exit(0);

// The stamp takes the time the build started: a source saved during the build is newer.
const started = new Date();
const build = spawnSync(process.execPath, ['node_modules/@nestjs/cli/bin/nest.js', 'build'], { stdio: ['ignore', 2, 2] });
if (build.status !== 0) process.exit(build.status ?? 1);
// Which build this is, for the banner, the logs, /health/ready and the build_info gauge:
// BUILD_COMMIT when the build has no git checkout (a Docker build stage), else the checkout's.
const git = spawnSync('git', ['rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8' });
const commit = process.env.BUILD_COMMIT?.trim() || (git.status === 0 ? git.stdout.trim() : 'unknown');
const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
writeFileSync('dist/build-info.json', JSON.stringify({ version, commit }) + '\n');
for (const path of RUNTIME_FILES) cpSync(path, join('dist', path), { recursive: true });
writeFileSync(STAMP, '');
utimesSync(STAMP, started, started);
