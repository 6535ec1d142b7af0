import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Where the service's CPU went during a `--profile` run (self time, from node --cpu-prof). */
export interface ProfileSummary {
  file: string;
  totalMs: number;
  /** Self time by package (node_modules/<name>), service source folder, or node internals. */
  byArea: { area: string; ms: number; percent: number }[];
  /** The functions with the most self time. */
  topFunctions: { name: string; where: string; ms: number; percent: number }[];
}

interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: CpuProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  /** Microseconds between successive samples. */
  timeDeltas: number[];
}

/**
 * Reads the newest profile the process `pid` wrote into `dir` and ranks self time, over the
 * `windowsUs` (monotonic microseconds, bench/shared/load.ts) when given, else after start-up.
 */
export function summariseProfiles(dir: string, pid: number, windowsUs?: readonly (readonly [number, number])[], top = 30): ProfileSummary | undefined {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile') && f.includes(`.${pid}.`))
    .map((f) => join(dir, f))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  if (files.length === 0) return undefined;
  // The first seconds are the start-up (module loading, Nest bootstrap), not serving.
  return summariseProfile(files[0], top, 3000, windowsUs);
}

/**
 * Self time per function; samples in the first `skipMs` (start-up: module loading, migrations
 * check) are left out, and with `windowsUs` those outside every window.
 */
export function summariseProfile(file: string, top = 30, skipMs = 0, windowsUs?: readonly (readonly [number, number])[]): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const sampleMs = (profile.endTime - profile.startTime) / 1000 / Math.max(1, profile.samples.length);
  const hits = new Map<number, number>();
  let elapsedUs = 0;
  profile.samples.forEach((id, index) => {
    elapsedUs += profile.timeDeltas[index] ?? 0;
    const at = profile.startTime + elapsedUs;
    const inWindow = !windowsUs || windowsUs.some(([start, end]) => at >= start && at <= end);
    if (elapsedUs >= skipMs * 1000 && inWindow) hits.set(id, (hits.get(id) ?? 0) + 1);
  });
  const byFunction = new Map<string, { name: string; where: string; ms: number }>();
  const byArea = new Map<string, number>();
  let busyMs = 0;
  for (const node of profile.nodes) {
    const count = hits.get(node.id) ?? 0;
    if (count === 0) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const ms = count * sampleMs;
    // (idle) is the event loop waiting: not work.
    if (functionName === '(idle)' || functionName === '(program)' || functionName === '(garbage collector)') {
      if (functionName !== '(idle)') add(byArea, functionName, ms);
      if (functionName === '(garbage collector)') busyMs += ms;
      continue;
    }
    busyMs += ms;
    const where = `${shorten(url)}:${lineNumber + 1}`;
    const key = `${functionName}@${where}`;
    const entry = byFunction.get(key) ?? { name: functionName || '(anonymous)', where, ms: 0 };
    entry.ms += ms;
    byFunction.set(key, entry);
    add(byArea, areaOf(url), ms);
  }
  const percent = (ms: number) => Math.round((ms / busyMs) * 1000) / 10;
  return {
    file,
    totalMs: Math.round(busyMs),
    byArea: [...byArea.entries()].map(([area, ms]) => ({ area, ms: Math.round(ms), percent: percent(ms) })).sort((a, b) => b.ms - a.ms),
    topFunctions: [...byFunction.values()]
      .sort((a, b) => b.ms - a.ms)
      .slice(0, top)
      .map((f) => ({ ...f, ms: Math.round(f.ms), percent: percent(f.ms) })),
  };
}

function add(map: Map<string, number>, key: string, ms: number): void {
  map.set(key, (map.get(key) ?? 0) + ms);
}

function areaOf(url: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const source = /\/dist\/src\/(.+?)\/[^/]+$/.exec(url);
  if (source) return `src/${source[1].split('/').slice(0, 2).join('/')}`;
  if (url.startsWith('node:') || url === '') return 'node (internals, natives)';
  return url;
}

const shorten = (url: string) =>
  url
    .replace(/^file:\/\//, '')
    .replace(/^.*node_modules\//, '')
    .replace(/^.*\/dist\//, 'dist/');

/** A summary as lines: busy time, the areas above 1 %, then the top functions. */
export function profileLines(summary: ProfileSummary, areas = 25): string[] {
  return [
    `busy ${summary.totalMs} ms`,
    ...summary.byArea.slice(0, areas).map((a) => `${String(a.percent).padStart(5)}%  ${a.area}`),
    '',
    ...summary.topFunctions.map((f) => `${String(f.percent).padStart(5)}%  ${f.name}  ${f.where}`),
  ];
}

/** `node dist/bench/load/profile.js FILE.cpuprofile [TOP] [SKIP_MS]`: prints the summary of one profile. */
if (process.argv[1]?.endsWith('/profile.js') && process.argv[2]) {
  for (const line of profileLines(summariseProfile(process.argv[2], Number(process.argv[3] ?? 40), Number(process.argv[4] ?? 0)))) console.log(line);
}
