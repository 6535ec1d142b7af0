import autocannon from 'autocannon';
import type { BenchOptions } from './options.js';
import type { DatabaseMeter, DatabaseUse } from './database-meter.js';
import type { BenchRequest, Rotation, Scenario } from './scenarios.js';
import { ProcessSampler, type ProcessUse, type RunningServer } from './servers.js';
import { round } from './round.js';

/** One server's figures for one endpoint, over every measured round. */
export interface ServerFigures {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  responses: number;
  non2xx: number;
  /** Connection errors and timeouts. */
  errors: number;
  statusCodes: Record<string, number>;
  /** Server CPU time per answered request (user + system), the steadiest figure on a shared machine. */
  cpuMsPerRequest: number | null;
  /** Of it, in the kernel. */
  systemCpuMsPerRequest: number | null;
  /** The server's main thread taken off a core while runnable, per request (ProcessUse.preemptions). */
  preemptionsPerRequest: number | null;
  /**
   * PostgreSQL's CPU per request (embedded server only): all its processes during the measured
   * rounds (backends and background work alike), divided by the answered requests.
   */
  postgresCpuMsPerRequest: number | null;
  /** Statements PostgreSQL ran during the measured rounds per answered request (pg_stat_statements), rate limiting and transaction control included. */
  statementsPerRequest: number | null;
  /** Of those, BEGIN, COMMIT, ROLLBACK and savepoints. */
  transactionControlPerRequest: number | null;
  /** The load generator's own CPU per request (autocannon runs in the bench process). */
  loadCpuMsPerRequest: number;
  rssMaxMb: number | null;
  rssMeanMb: number | null;
  /** req/s of each round, to show the spread. */
  rounds: number[];
}

export interface EndpointResult {
  key: string;
  label: string;
  status: 'measured' | 'unavailable';
  /** Why an endpoint was skipped, or what differs. */
  note?: string;
  connections: number;
  service?: ServerFigures;
  baseline?: ServerFigures;
  /** service req/s ÷ baseline req/s. */
  ratio?: number;
  /** service p99 ÷ baseline p99. */
  p99Ratio?: number;
  /** service CPU per request ÷ baseline CPU per request. */
  cpuRatio?: number;
  /** Latency of requests sent one at a time (scenarios with a latency target only). */
  singleClient?: { service: SingleClientLatency; baseline?: SingleClientLatency };
  /** Monotonic microseconds (CLOCK_MONOTONIC, as V8's CPU profiles) of the service's measured rounds: to cut its `--profile` to this load. */
  serviceWindowsUs?: [number, number][];
  /** The service against the limit probe that bounds this endpoint (set once the probes are measured). */
  limit?: LimitFraction;
  /** The same against the framework probe doing the same work (the service's bootstrap with bench-only routes). */
  frameworkLimit?: LimitFraction;
  /** Its fraction of the framework probe answering as many bytes (scenario.sizedBound). */
  frameworkSizedLimit?: LimitFraction;
}

export interface LimitFraction {
  probe: string;
  probeRequestsPerSecond: number;
  /** The endpoint's req/s ÷ the probe's. */
  fraction: number;
}

export interface SingleClientLatency {
  requests: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

const log = (line: string) => process.stderr.write(`${line}\n`);

/** Loads one endpoint on both servers with the same requests at the same concurrency (see measureRuns). */
export async function loadEndpoint(
  scenario: Scenario,
  rotation: Rotation,
  service: RunningServer,
  baseline: RunningServer,
  options: BenchOptions,
  meter?: DatabaseMeter,
): Promise<EndpointResult> {
  const connections = scenario.connections ?? options.connections;
  const base = { key: scenario.key, label: scenario.label, connections };
  const serviceProbe = await probe(service, scenario.request(0, rotation));
  if (serviceProbe.routeMissing) {
    log(`bench: ${scenario.label}: not available (the service answers 404 for this route): skipped`);
    return { ...base, status: 'unavailable', note: 'the service answers 404 for this route (not merged into this build yet)' };
  }
  if (serviceProbe.status >= 300) log(`bench: ${scenario.label}: the service's probe answered ${serviceProbe.status} ${serviceProbe.body.slice(0, 300)}`);
  const baselineProbe = await probe(baseline, scenario.request(0, rotation));
  const withBaseline = !baselineProbe.routeMissing;
  if (!withBaseline) log(`bench: ${scenario.label}: the baseline has no such route: service measured alone`);
  else if (baselineProbe.status >= 300)
    log(`bench: ${scenario.label}: the baseline's probe answered ${baselineProbe.status} ${baselineProbe.body.slice(0, 300)}`);
  const bodiesDiffer = withBaseline && !sameAnswer(serviceProbe, baselineProbe);
  if (bodiesDiffer) {
    log(
      `bench: ${scenario.label}: the two servers answer the same request differently:\n  service  ${serviceProbe.body.slice(0, 400)}\n  baseline ${baselineProbe.body.slice(0, 400)}`,
    );
  }

  const targets = withBaseline ? [service, baseline] : [service];
  const runs = await measureRuns(targets, scenario, rotation, connections, options, meter);
  const measured = new Map([...runs].map(([target, figures]) => [target, combine(figures)]));
  const singleClient = scenario.singleClientRequests
    ? {
        service: await oneAtATime(service, scenario, rotation, scenario.singleClientRequests),
        baseline: withBaseline ? await oneAtATime(baseline, scenario, rotation, scenario.singleClientRequests) : undefined,
      }
    : undefined;
  const serviceFigures = measured.get(service)!;
  const baselineFigures = measured.get(baseline);
  const result: EndpointResult = {
    ...base,
    status: 'measured',
    service: serviceFigures,
    baseline: baselineFigures,
    ratio: baselineFigures ? round(serviceFigures.requestsPerSecond / baselineFigures.requestsPerSecond, 3) : undefined,
    p99Ratio: baselineFigures ? round(serviceFigures.p99Ms / baselineFigures.p99Ms, 3) : undefined,
    cpuRatio:
      baselineFigures?.cpuMsPerRequest && serviceFigures.cpuMsPerRequest
        ? round(serviceFigures.cpuMsPerRequest / baselineFigures.cpuMsPerRequest, 3)
        : undefined,
    note: !withBaseline ? 'the baseline has no such route' : bodiesDiffer ? 'the baseline answers the probe with another body (see the log)' : undefined,
    singleClient,
    serviceWindowsUs: runs.get(service)!.map((r) => r.windowUs),
  };
  log(
    `bench: ${scenario.label.padEnd(46)} service ${fmt(serviceFigures)}` +
      (baselineFigures
        ? ` | baseline ${fmt(baselineFigures)} | ratio ${result.ratio!.toFixed(2)}, p99 ×${result.p99Ratio!.toFixed(2)}, CPU ×${result.cpuRatio?.toFixed(2) ?? '?'}`
        : ''),
  );
  if (singleClient) {
    const show = (l: SingleClientLatency) => `p50 ${l.p50Ms} p99 ${l.p99Ms} ms`;
    log(
      `bench: ${scenario.label.padEnd(46)} one request at a time: service ${show(singleClient.service)}${singleClient.baseline ? ` | baseline ${show(singleClient.baseline)}` : ''}`,
    );
  }
  return result;
}

/**
 * A warm-up for each target, then `rounds` measured rounds in alternating order (first to
 * last, then last to first, …) so that drift of a shared machine hits all alike; each
 * target's rounds, not yet combined (to combine them with rounds measured at another time).
 */
export async function measureRuns(
  targets: readonly RunningServer[],
  scenario: Scenario,
  rotation: Rotation,
  connections: number,
  options: Pick<BenchOptions, 'warmupSeconds' | 'durationSeconds' | 'rounds'>,
  meter?: DatabaseMeter,
): Promise<Map<RunningServer, RunFigures[]>> {
  for (const target of targets) await run(target, scenario, rotation, connections, options.warmupSeconds, meter);
  const measured = new Map<RunningServer, RunFigures[]>(targets.map((t) => [t, []]));
  for (let round = 0; round < options.rounds; round++) {
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    for (const target of order) measured.get(target)!.push(await run(target, scenario, rotation, connections, options.durationSeconds, meter));
  }
  return measured;
}

/** `count` requests in sequence, each sent when the previous answer has arrived. */
async function oneAtATime(target: RunningServer, scenario: Scenario, rotation: Rotation, count: number): Promise<SingleClientLatency> {
  // Requests still in flight when the load stopped would otherwise be ahead of the first one.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const latencies = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const request = scenario.request(2_000_003 + i, rotation);
    const started = performance.now();
    const response = await fetch(target.baseUrl + request.path, { method: request.method, headers: request.headers, body: request.body });
    await response.arrayBuffer();
    latencies[i] = performance.now() - started;
  }
  latencies.sort();
  return { requests: count, p50Ms: round(percentile(latencies, 0.5), 2), p99Ms: round(percentile(latencies, 0.99), 2), maxMs: round(latencies[count - 1], 2) };
}

export interface RunFigures {
  latencies: Float64Array;
  durationSeconds: number;
  responses: number;
  non2xx: number;
  errors: number;
  statusCodes: Record<string, number>;
  rss: ProcessUse | null;
  database: DatabaseUse;
  loadCpuMs: number;
  /** When the run began and ended, in monotonic microseconds (the clock of V8's CPU profiles). */
  windowUs: [number, number];
}

/** One autocannon run against one server; latencies are kept exactly (autocannon's own histogram rounds to whole ms). */
async function run(
  target: RunningServer,
  scenario: Scenario,
  rotation: Rotation,
  connections: number,
  seconds: number,
  meter?: DatabaseMeter,
): Promise<RunFigures> {
  let next = 0;
  const databaseAtStart = await meter?.read();
  const startUs = monotonicUs();
  const loadAtStart = process.cpuUsage();
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  const sampler = new ProcessSampler(target.pid);
  sampler.start();
  const instance = autocannon({
    url: target.baseUrl,
    connections,
    duration: seconds,
    requests: [
      {
        setupRequest: (request: Record<string, unknown>) => {
          const { method, path, headers, body } = scenario.request(next++, rotation);
          request.method = method;
          request.path = path;
          request.headers = headers;
          request.body = body;
          return request;
        },
      },
    ],
  });
  instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => {
    if (count === latencies.length) {
      const grown = new Float64Array(latencies.length * 2);
      grown.set(latencies);
      latencies = grown;
    }
    latencies[count++] = responseTime;
  });
  const result = await instance;
  const windowUs: [number, number] = [startUs, monotonicUs()];
  const rss = sampler.stop();
  const loadUse = process.cpuUsage(loadAtStart);
  const databaseAtEnd = await meter?.read();
  const statusCodes: Record<string, number> = {};
  for (const [code, { count: n }] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = Number(n);
  return {
    latencies: latencies.subarray(0, count),
    durationSeconds: result.duration,
    responses: count,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statusCodes,
    rss,
    database:
      meter && databaseAtStart && databaseAtEnd ? meter.between(databaseAtStart, databaseAtEnd) : { cpuMs: null, statements: null, transactionControl: null },
    loadCpuMs: (loadUse.user + loadUse.system) / 1000,
    windowUs,
  };
}

/** CLOCK_MONOTONIC in microseconds: the clock of the startTime of a V8 CPU profile (`--cpu-prof`) of any process on this machine. */
export const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

export function combine(runs: RunFigures[]): ServerFigures {
  const total = runs.reduce((n, r) => n + r.latencies.length, 0);
  const all = new Float64Array(total);
  let offset = 0;
  for (const r of runs) {
    all.set(r.latencies, offset);
    offset += r.latencies.length;
  }
  all.sort();
  const statusCodes: Record<string, number> = {};
  for (const r of runs) for (const [code, n] of Object.entries(r.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  const rssRuns = runs.map((r) => r.rss).filter((r) => r !== null);
  const responses = runs.reduce((n, r) => n + r.responses, 0);
  /**
   * A figure of the server process summed over the rounds, per answered request; null when a
   * round lacks it. To 0.1 µs: the bare probes spend 13–25 µs a request, and the ×N table
   * divides by their ratio (scale-report.ts), which whole microseconds left 5 % uncertain.
   */
  const processPerRequest = (figure: 'cpuMs' | 'systemCpuMs' | 'preemptions') =>
    rssRuns.length === runs.length && responses > 0 ? round(rssRuns.reduce((n, r) => n + r[figure], 0) / responses, 4) : null;
  /** A database figure summed over the rounds, per answered request; null when a round lacks it. */
  const databasePerRequest = (figure: keyof DatabaseUse) =>
    responses > 0 && runs.every((r) => r.database[figure] !== null) ? round(runs.reduce((n, r) => n + r.database[figure]!, 0) / responses, 3) : null;
  const seconds = runs.reduce((n, r) => n + r.durationSeconds, 0);
  return {
    requestsPerSecond: Math.round(responses / seconds),
    p50Ms: round(percentile(all, 0.5), 2),
    p99Ms: round(percentile(all, 0.99), 2),
    responses,
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    statusCodes,
    cpuMsPerRequest: processPerRequest('cpuMs'),
    systemCpuMsPerRequest: processPerRequest('systemCpuMs'),
    preemptionsPerRequest: processPerRequest('preemptions'),
    postgresCpuMsPerRequest: databasePerRequest('cpuMs'),
    statementsPerRequest: databasePerRequest('statements'),
    transactionControlPerRequest: databasePerRequest('transactionControl'),
    loadCpuMsPerRequest: responses === 0 ? 0 : round(runs.reduce((n, r) => n + r.loadCpuMs, 0) / responses, 3),
    rssMaxMb: rssRuns.length ? Math.max(...rssRuns.map((r) => r.maxMb)) : null,
    rssMeanMb: rssRuns.length ? round(rssRuns.reduce((n, r) => n + r.meanMb, 0) / rssRuns.length, 2) : null,
    rounds: runs.map((r) => Math.round(r.responses / r.durationSeconds)),
  };
}

/** The q-quantile of sorted latencies (NaN for none). */
export const percentile = (sorted: Float64Array, q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN);

/**
 * Whether both servers gave the same answer to the same request: same status and the same
 * JSON, apart from what differs between two calls anyway (issue times, tokens, signed URLs).
 * The baseline's hand-written rules (drip, features) are checked against the service's this way.
 */
function sameAnswer(a: ProbeResult, b: ProbeResult): boolean {
  if (a.status !== b.status) return false;
  const volatile = new Set(['generated_at', 'updated_at', 'access_token', 'stream_url']);
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value)
          .filter(([key]) => !volatile.has(key))
          .map(([key, v]) => [key, strip(v)]),
      );
    }
    return value;
  };
  try {
    return JSON.stringify(strip(JSON.parse(a.body))) === JSON.stringify(strip(JSON.parse(b.body)));
  } catch {
    return a.body === b.body;
  }
}

interface ProbeResult {
  status: number;
  body: string;
  /** 404 from the router itself: the route does not exist on this build. */
  routeMissing: boolean;
}

/** One request, to tell a missing route (skip) from an endpoint that answers. */
async function probe(target: RunningServer, request: BenchRequest): Promise<ProbeResult> {
  const response = await fetch(target.baseUrl + request.path, { method: request.method, headers: request.headers, body: request.body });
  const body = await response.text();
  // Both servers answer an unknown route with not_found "No endpoint answers …" (a 404 of a
  // known route, such as audio_not_ready or an unknown novel, says something else).
  const routeMissing = response.status === 404 && /"No endpoint answers /.test(body);
  return { status: response.status, body, routeMissing };
}

export const fmt = (f: ServerFigures) =>
  `${String(f.requestsPerSecond).padStart(6)} req/s p50 ${f.p50Ms.toFixed(1)} p99 ${f.p99Ms.toFixed(1)} ms CPU ${f.cpuMsPerRequest?.toFixed(2) ?? '?'} (sys ${f.systemCpuMsPerRequest?.toFixed(2) ?? '?'}, preempted ${f.preemptionsPerRequest?.toFixed(2) ?? '?'}×, pg ${f.postgresCpuMsPerRequest?.toFixed(2) ?? '?'}, load ${f.loadCpuMsPerRequest.toFixed(2)}) ms/req non-2xx ${f.non2xx}`;
