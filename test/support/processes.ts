import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

let built = false;

/** Builds dist/ once per test file, as `npm start` would. */
export function buildOnce(): void {
  if (built) return;
  execFileSync('npx', ['nest', 'build'], { stdio: 'ignore' });
  built = true;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface ServiceProcess {
  child: ChildProcess;
  output(): string;
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<void>;
  exit(): Promise<number | null>;
}

/** Runs the built service (dist/src/main.js) or CLI as a real child process. */
export function runNode(script: string, args: string[], env: Record<string, string | undefined>): ServiceProcess {
  const child = spawn(process.execPath, [script, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
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
