import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { round } from './round.js';

/** A server under test: the service, the baseline or a limit probe, each its own process. */
export interface RunningServer {
  name: string;
  pid: number;
  baseUrl: string;
  /** Last lines of its stderr and stdout, for the report when it dies. */
  output(): string;
  stop(): Promise<void>;
}

export interface StartOptions {
  name: string;
  script: string;
  env: Record<string, string>;
  port: number;
  /** Extra node flags, e.g. --cpu-prof. */
  nodeFlags?: string[];
  /** The Node binary (`npm run bench -- --node=…`); the bench's own by default. */
  node?: string;
}

/**
 * The node flags production starts the service with (the Dockerfile's CMD; the deploy
 * examples and npm scripts repeat them, test/operations/manifests.spec.ts checks that they
 * agree). Every server of a sitting runs with them, so the service and the bare servers
 * it is compared with have the same heap (ADR 0033).
 */
export const PRODUCTION_NODE_FLAGS = ['--enable-source-maps', '--max-semi-space-size=16'];

/** Starts `node <script>` (options.node, else the bench's Node) and waits until GET /health/live answers 200. */
export async function startServer(options: StartOptions): Promise<RunningServer> {
  const child = spawn(options.node ?? process.execPath, [...PRODUCTION_NODE_FLAGS, ...(options.nodeFlags ?? []), options.script], {
    env: { ...process.env, ...options.env, PORT: String(options.port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    if (lines.length > 200) lines.splice(0, lines.length - 200);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const baseUrl = `http://127.0.0.1:${options.port}`;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${options.name} exited with ${child.exitCode} while starting:\n${lines.slice(-20).join('\n')}`);
    try {
      const response = await fetch(`${baseUrl}/health/live`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${options.name} did not start within 60 s:\n${lines.slice(-20).join('\n')}`);
    await sleep(100);
  }
  return {
    name: options.name,
    pid: child.pid!,
    baseUrl,
    output: () => lines.slice(-20).join('\n'),
    stop: () => stopChild(child, exited),
  };
}

async function stopChild(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

export interface ProcessUse {
  maxMb: number;
  meanMb: number;
  /** CPU time (user + system) the process used meanwhile, in milliseconds. */
  cpuMs: number;
  /** Of it, in the kernel (socket writes and reads, epoll). */
  systemCpuMs: number;
  /**
   * Times its main thread was taken off the CPU while runnable (nonvoluntary_ctxt_switches):
   * a socket write that wakes PostgreSQL or the load generator often hands them the core. A
   * CPU profile samples by wall time, so it books that wait to the write (`writev`).
   */
  preemptions: number;
}

/**
 * Samples a process's resident set size (VmRSS of /proc/<pid>/status) until stopped, and
 * the CPU time it used meanwhile (/proc/<pid>/stat): CPU per request is the steadiest
 * figure on a machine shared with other work, where req/s moves with the neighbours.
 */
export class ProcessSampler {
  private readonly samples: number[] = [];
  private timer?: NodeJS.Timeout;
  private atStart: ProcessTicks = { cpuTicks: 0, systemTicks: 0, preemptions: 0 };

  constructor(private readonly pid: number) {}

  start(intervalMs = 200): void {
    this.atStart = processTicks(this.pid) ?? this.atStart;
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
  }

  stop(): ProcessUse | null {
    if (this.timer) clearInterval(this.timer);
    this.sample();
    const use = processTicks(this.pid);
    if (this.samples.length === 0 || use === null) return null;
    const max = Math.max(...this.samples);
    const mean = this.samples.reduce((a, b) => a + b, 0) / this.samples.length;
    const ms = (ticks: number) => ticks * (1000 / CLOCK_TICKS_PER_SECOND);
    return {
      maxMb: round(max / 1024, 1),
      meanMb: round(mean / 1024, 1),
      cpuMs: ms(use.cpuTicks - this.atStart.cpuTicks),
      systemCpuMs: ms(use.systemTicks - this.atStart.systemTicks),
      preemptions: use.preemptions - this.atStart.preemptions,
    };
  }

  private sample(): void {
    const kb = rssKb(this.pid);
    if (kb !== null) this.samples.push(kb);
  }
}

export function rssKb(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** Linux's USER_HZ: /proc times are in these ticks (getconf CLK_TCK). */
const CLOCK_TICKS_PER_SECOND = 100;

/** The fields of /proc/<pid>/stat after the name (which sits in parentheses and may hold spaces). */
function statFields(pid: number | string): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

interface ProcessTicks {
  cpuTicks: number;
  systemTicks: number;
  preemptions: number;
}

/** The process's utime + stime and stime (fields 14 and 15 of /proc/<pid>/stat), and its main thread's preemptions. */
function processTicks(pid: number): ProcessTicks | null {
  const fields = statFields(pid);
  if (!fields) return null;
  let preemptions = 0;
  try {
    preemptions = Number(/^nonvoluntary_ctxt_switches:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    // Gone between the two reads: the stat fields still count.
  }
  return { cpuTicks: Number(fields[11]) + Number(fields[12]), systemTicks: Number(fields[12]), preemptions };
}

/**
 * CPU time of a PostgreSQL server in milliseconds: the postmaster, its live backends, and
 * the backends that have exited (counted in the postmaster's cutime and cstime). A backend
 * reaped while /proc is read would count in neither: the reading is taken again until the
 * postmaster's children's time held still across it.
 */
export function postgresCpuMs(postmasterPid: number): number | null {
  // On a busy machine a scan of /proc takes long enough to meet a reap often: retake it up to 20 times.
  for (let attempt = 0; attempt < 20; attempt++) {
    const before = statFields(postmasterPid);
    if (!before) return null;
    let ticks = 0;
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const fields = statFields(entry);
      // Field 4 (index 1 here) is the parent pid.
      if (fields && Number(fields[1]) === postmasterPid) ticks += Number(fields[11]) + Number(fields[12]);
    }
    const after = statFields(postmasterPid);
    if (!after) return null;
    const reaped = (fields: string[]) => Number(fields[13]) + Number(fields[14]);
    if (reaped(before) === reaped(after)) return (ticks + Number(after[11]) + Number(after[12]) + reaped(after)) * (1000 / CLOCK_TICKS_PER_SECOND);
  }
  return null;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
