import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/shared/net/free-port.js';

let built = false;

const BUILD_WAIT_MS = 120_000;
const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Builds dist/ once per test run, as `npm start` would. Test files run in parallel
 * workers and a build rewrites dist/ in place, so a second build could replace files
 * while a service another file is starting reads them: callers take turns on a lock file, the first
 * builds and leaves a marker for the run in dist/, the others find it and return.
 */
export function buildOnce(): void {
  if (built) return;
  const run = process.env.TEST_PG_RUN_ID ?? String(process.pid);
  const marker = join('dist', `.test-build-${run}`);
  const lock = join(tmpdir(), `prl-build-${run}.lock`);
  const deadline = Date.now() + BUILD_WAIT_MS;
  let held: number | undefined;
  while (held === undefined) {
    try {
      held = openSync(lock, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (Date.now() > deadline) throw new Error(`another test file has held ${lock} for ${BUILD_WAIT_MS} ms`);
      sleepSync(100);
    }
  }
  try {
    if (!existsSync(marker)) {
      execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'ignore' });
      writeFileSync(marker, '');
    }
    built = true;
  } finally {
    closeSync(held);
    unlinkSync(lock);
  }
}

/** How a process ended: its exit code, or the signal that ended it (so a failed expectation names it). */
export type ExitStatus = number | NodeJS.Signals | null;

export interface ServiceProcess {
  child: ChildProcess;
  output(): string;
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<void>;
  exit(): Promise<ExitStatus>;
}

/** Runs the built service (dist/src/main.js) or CLI as a real child process. */
export function runNode(script: string, args: string[], env: Record<string, string | undefined>): ServiceProcess {
  const child = spawn(process.execPath, [script, ...args], {
    // ENV_FILE=none: a developer's own .env must not reach the processes under test.
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ENV_FILE: 'none', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<ExitStatus>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  return {
    child,
    output: () => output,
    exit: () => exited,
    async waitForOutput(pattern, timeoutMs = 30_000) {
      const started = Date.now();
      while (!pattern.test(output)) {
        if (child.exitCode !== null) throw new Error(`process exited (${child.exitCode}) before printing ${pattern}:\n${output}`);
        if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${pattern}:\n${output}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

/** Runs the built CLI to its end: how it ended, its standard output alone, and everything it printed. */
export async function runCli(args: string[], env: Record<string, string | undefined>): Promise<{ code: ExitStatus; stdout: string; output: string }> {
  const run = runNode('dist/src/cli.js', args, { ...env, LOG_LEVEL: 'silent' });
  let stdout = '';
  run.child.stdout!.on('data', (chunk) => (stdout += chunk));
  const code = await run.exit();
  return { code, stdout, output: run.output() };
}

/** The built service on a free port of 127.0.0.1, once it is listening. */
export async function startService(env: Record<string, string>): Promise<ServiceProcess & { origin: string }> {
  const port = await freePort();
  const service = runNode('dist/src/main.js', [], { ...env, HOST: '127.0.0.1', PORT: String(port) });
  await service.waitForOutput(/Swagger UI/, 60_000);
  return { ...service, origin: `http://127.0.0.1:${port}` };
}
