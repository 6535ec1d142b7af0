import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Which build runs, on which Node: in the start banner, the lifecycle lines, /health/ready and a gauge. */
export interface BuildInfo {
  version: string;
  /** The git commit the build was made from (`BUILD_COMMIT` at build time, or the checkout's), or `unknown`. */
  commit: string;
  node: string;
}

let known: BuildInfo | undefined;

/**
 * `dist/build-info.json`, written by `npm run build`; run from the sources (the tests), the
 * nearest package.json's version with an unknown commit.
 */
export function buildInfo(): BuildInfo {
  return (known ??= { ...readBuildFile(), node: process.version });
}

function readBuildFile(): { version: string; commit: string } {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    const built = join(dir, 'build-info.json');
    if (existsSync(built)) {
      const { version, commit } = JSON.parse(readFileSync(built, 'utf8')) as { version?: string; commit?: string };
      return { version: version ?? 'unknown', commit: commit ?? 'unknown' };
    }
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) return { version: (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version ?? 'unknown', commit: 'unknown' };
  }
  return { version: 'unknown', commit: 'unknown' };
}
