import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { combine, fmt, type RunFigures } from '../../bench/shared/load.js';
import { postgresCpuMs, ProcessSampler } from '../../bench/shared/servers.js';

/** What the bench reads from /proc: a server's CPU, its kernel share and preemptions, and a PostgreSQL server's CPU with its exited backends. */

test('the sampler reads CPU, kernel CPU and preemptions of a live process from /proc', async () => {
  // A child that spends half a second of its own CPU reading a /proc file (a syscall each time),
  // says so and stays. CPU, not wall time: on a busy machine a second of wall time is less CPU.
  const busy =
    'const {readFileSync}=require("fs");const spent=()=>{const u=process.cpuUsage();return (u.user+u.system)/1000};while(spent()<500){readFileSync("/proc/self/stat")}console.log("done");setTimeout(()=>{},60000)';
  const child = spawn(process.execPath, ['-e', busy]);
  const sampler = new ProcessSampler(child.pid!);
  sampler.start(50);
  await once(child.stdout!, 'data');
  const use = sampler.stop();
  child.kill();
  expect(use).not.toBeNull();
  expect(use!.cpuMs).toBeGreaterThan(300);
  expect(use!.systemCpuMs).toBeGreaterThan(0);
  expect(use!.systemCpuMs).toBeLessThanOrEqual(use!.cpuMs);
  expect(Number.isInteger(use!.preemptions) && use!.preemptions >= 0).toBe(true);
});

test('each round adds up, and the figures come per answered request', () => {
  const round = (responses: number, cpuMs: number, systemCpuMs: number, preemptions: number): RunFigures => ({
    latencies: new Float64Array([1, 2]),
    durationSeconds: 1,
    responses,
    non2xx: 0,
    errors: 0,
    statusCodes: { 200: responses },
    rss: { maxMb: 100, meanMb: 90, cpuMs, systemCpuMs, preemptions },
    database: { cpuMs: 10, statements: responses, transactionControl: 0 },
    loadCpuMs: 1,
    windowUs: [0, 1_000_000],
  });
  const figures = combine([round(1_000, 100, 20, 300), round(3_000, 260, 60, 500)]);
  expect(figures.cpuMsPerRequest).toBe(0.09);
  // Kept to 0.1 µs: a bare probe's 13–25 µs a request, compared between two runs.
  expect(combine([round(3_000, 50, 20, 300)]).cpuMsPerRequest).toBe(0.0167);
  expect(figures.systemCpuMsPerRequest).toBe(0.02);
  expect(figures.preemptionsPerRequest).toBe(0.2);
  expect(fmt(figures)).toContain('CPU 0.09 (sys 0.02, preempted 0.20×, pg 0.01, load 0.00) ms/req');
  // A round whose process could not be read: no per-request figure rather than a wrong one.
  expect(combine([round(1_000, 100, 20, 300), { ...round(1_000, 0, 0, 0), rss: null }]).systemCpuMsPerRequest).toBeNull();
});

test("a server's CPU with its exited children never goes backwards while children exit and are reaped", async () => {
  // A stand-in for the postmaster: it keeps starting children that burn some milliseconds and exit, and reaps them
  // (a reap every ~13 ms, far more often than PostgreSQL closes backends).
  const churn = `const {spawn}=require("child_process");const burn="const e=Date.now()+40;while(Date.now()<e){}";
    const next=()=>spawn(process.execPath,["-e",burn]).on("exit",next);for(let i=0;i<3;i++)next();console.log("up")`;
  const parent = spawn(process.execPath, ['-e', churn]);
  try {
    await once(parent.stdout!, 'data');
    const readings: number[] = [];
    const until = Date.now() + 3000;
    while (Date.now() < until) {
      const reading = postgresCpuMs(parent.pid!);
      expect(reading).not.toBeNull();
      readings.push(reading!);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const backwards = readings.filter((reading, i) => i > 0 && reading < readings[i - 1]);
    expect(backwards).toEqual([]);
    expect(readings.at(-1)!).toBeGreaterThan(readings[0]);
  } finally {
    parent.kill('SIGKILL');
  }
});
