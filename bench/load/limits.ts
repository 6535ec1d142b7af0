import { join } from 'node:path';
import { freePort } from '../../src/shared/net/free-port.js';
import type { DatabaseMeter } from '../shared/database-meter.js';
import { combine, fmt, measureRuns, type EndpointResult, type RunFigures, type ServerFigures } from '../shared/load.js';
import type { BenchOptions } from '../shared/options.js';
import { FRAMEWORK_PROBE_PATHS, JSON_PROBE_ANSWER, PROBE_ROWS } from '../probes/answers.js';
import type { LimitProbeKey, Rotation, Scenario } from '../shared/scenarios.js';
import { startServer, type RunningServer } from '../shared/servers.js';
import { round } from '../shared/round.js';

/** A limit probe: a bare server (bench/probes), or a route of the framework probe, loaded like the endpoints. */
interface LimitProbe extends Scenario {
  key: ProbeKey;
  /** The work it does, which bounds the endpoints of that `bound`. */
  bound: LimitProbeKey;
  stack: ProbeStack;
  /** A bare probe's built script, relative to dist/bench/probes (one process per script). */
  script?: string;
}

/** Bare Fastify (+ pg), or the service's own bootstrap with the probe routes (bench/probes/framework.ts). */
export type ProbeStack = 'bare' | 'framework';
export type ProbeKey = LimitProbeKey | `framework-${LimitProbeKey}`;

const row = (i: number) => (i * 7_919) % PROBE_ROWS;
const upsertBody = (i: number) => JSON.stringify({ novel_id: `novel-${i % 200}`, chapter_number: 1 + (i % 30), position_seconds: i % 3600 });
const bearer = (rotation: Rotation, i: number) => ({ authorization: `Bearer ${rotation.tokens[i % rotation.tokens.length]}` });

const PROBES: readonly LimitProbe[] = [
  {
    key: 'json',
    bound: 'json',
    stack: 'bare',
    label: 'probe: bare Fastify, fixed JSON',
    script: 'json.js',
    request: () => ({ method: 'GET', path: '/probe', headers: {} }),
  },
  {
    key: 'json-page',
    bound: 'json-page',
    stack: 'bare',
    label: 'probe: bare Fastify, JSON of a catalog page',
    script: 'json.js',
    request: () => ({ method: 'GET', path: '/probe/page', headers: {} }),
  },
  {
    key: 'pk-select',
    bound: 'pk-select',
    stack: 'bare',
    label: 'probe: bare Fastify + pg, primary-key SELECT',
    script: 'pk-select.js',
    request: (i) => ({ method: 'GET', path: `/probe/${row(i)}`, headers: {} }),
  },
  {
    key: 'upsert',
    bound: 'upsert',
    stack: 'bare',
    label: 'probe: bare Fastify + pg, upsert',
    script: 'upsert.js',
    request: (i) => ({ method: 'PUT', path: `/probe/${row(i)}`, headers: { 'content-type': 'application/json' }, body: upsertBody(i) }),
  },
  {
    key: 'framework-json',
    bound: 'json',
    stack: 'framework',
    label: 'probe: framework, token + fixed JSON',
    request: (i, r) => ({ method: 'GET', path: `/${FRAMEWORK_PROBE_PATHS.json}`, headers: bearer(r, i) }),
  },
  {
    key: 'framework-json-page',
    bound: 'json-page',
    stack: 'framework',
    label: 'probe: framework, token + JSON of a page',
    request: (i, r) => ({ method: 'GET', path: `/${FRAMEWORK_PROBE_PATHS.jsonPage}`, headers: bearer(r, i) }),
  },
  {
    key: 'framework-pk-select',
    bound: 'pk-select',
    stack: 'framework',
    label: 'probe: framework, token + primary-key SELECT',
    request: (i, r) => ({ method: 'GET', path: `/${FRAMEWORK_PROBE_PATHS.pkSelect}/${row(i)}`, headers: bearer(r, i) }),
  },
  {
    key: 'framework-upsert',
    bound: 'upsert',
    stack: 'framework',
    label: 'probe: framework, token + DTO + upsert',
    request: (i, r) => ({
      method: 'PUT',
      path: `/${FRAMEWORK_PROBE_PATHS.upsert}/${row(i)}`,
      headers: { ...bearer(r, i), 'content-type': 'application/json' },
      body: upsertBody(i),
    }),
  },
];

/** A probe's figures over every measured round, before and after the endpoints. */
export interface ProbeResult {
  key: ProbeKey;
  bound: LimitProbeKey;
  stack: ProbeStack;
  label: string;
  figures: ServerFigures;
  /** A framework probe's req/s ÷ the bare probe's of the same work: what the card's stack leaves of bare Fastify. */
  fractionOfBare?: number;
  /** Monotonic microseconds of its measured rounds (to cut the framework probe's `--profile`). */
  windowsUs?: [number, number][];
  /** The json and json-page probes' answer size in bytes (json-page: the catalog page's, measured at start). */
  answerBytes?: number;
}

/** How the framework probe is started: the service's environment, and the flags the service gets. */
export interface FrameworkProbeStart {
  /** The service's environment; PROBE_PAGE_BYTES is added (see LimitProbes.start). */
  env: Record<string, string>;
  node?: string;
  nodeFlags?: string[];
}

const log = (line: string) => process.stderr.write(`${line}\n`);

/**
 * The probes, started side by side with the service and the baseline and loaded with the same
 * connections, warm-up and rounds. Each is measured before and after the endpoints, and both
 * measurements count: the endpoints' figures come from between the two, on a machine whose
 * neighbours come and go.
 */
export class LimitProbes {
  private readonly runs = new Map<ProbeKey, RunFigures[]>();

  /** `servers`: keyed by a bare probe's script, and 'framework'. */
  private constructor(
    private readonly servers: ReadonlyMap<string, RunningServer>,
    private readonly pageBytes: number,
  ) {}

  /**
   * Starts the bare probes, then the framework probe (after them: it reads the tables the
   * database probes create). `framework` undefined: bare probes only. `pageBytes`: the size
   * of the json-page probes' answer, a catalog page as the service answers it.
   */
  static async start(
    root: string,
    databaseUrl: string,
    track: (server: RunningServer) => void,
    framework: FrameworkProbeStart | undefined,
    pageBytes: number,
  ): Promise<LimitProbes> {
    const servers = new Map<string, RunningServer>();
    const page = { PROBE_PAGE_BYTES: String(pageBytes) };
    for (const script of new Set(PROBES.filter((p) => p.stack === 'bare').map((p) => p.script!))) {
      const server = await startServer({
        name: script.replace(/\.js$/, ''),
        script: join(root, 'dist/bench/probes', script),
        env: { DATABASE_URL: databaseUrl, ...page },
        port: await freePort(),
        node: framework?.node,
      });
      track(server);
      servers.set(script, server);
    }
    if (framework) {
      const server = await startServer({
        name: 'framework probe',
        script: join(root, 'dist/bench/probes/framework.js'),
        env: { ...framework.env, ...page },
        port: await freePort(),
        node: framework.node,
        nodeFlags: framework.nodeFlags,
      });
      track(server);
      servers.set('framework', server);
    }
    log(`bench: limit probes ${[...servers].map(([key, s]) => `${key} pid ${s.pid}`).join(', ')}`);
    return new LimitProbes(servers, pageBytes);
  }

  /** The framework probe's process, if started. */
  get framework(): RunningServer | undefined {
    return this.servers.get('framework');
  }

  private serverOf(probe: LimitProbe): RunningServer | undefined {
    return this.servers.get(probe.stack === 'bare' ? probe.script! : 'framework');
  }

  /** One measurement of every probe (warm-up, then the rounds); the framework probe's requests take `rotation`'s tokens. */
  async measure(options: BenchOptions, rotation: Rotation, meter?: DatabaseMeter): Promise<void> {
    for (const probe of PROBES) {
      const server = this.serverOf(probe);
      if (!server) continue;
      if (probe.bound === 'json-page') await checkAnswerBytes(server, probe, rotation, this.pageBytes);
      const runs = (await measureRuns([server], probe, rotation, options.connections, options, meter)).get(server)!;
      this.runs.set(probe.key, [...(this.runs.get(probe.key) ?? []), ...runs]);
      log(`bench: ${probe.label.padEnd(46)} ${fmt(combine(runs))}`);
    }
  }

  results(): ProbeResult[] {
    const results = PROBES.filter((p) => this.runs.has(p.key)).map((p): ProbeResult => ({
      key: p.key,
      bound: p.bound,
      stack: p.stack,
      label: p.label,
      figures: combine(this.runs.get(p.key)!),
      windowsUs: this.runs.get(p.key)!.map((r) => r.windowUs),
      ...(p.bound === 'json' && { answerBytes: JSON_ANSWER_BYTES }),
      ...(p.bound === 'json-page' && { answerBytes: this.pageBytes }),
    }));
    for (const result of results.filter((r) => r.stack === 'framework')) {
      const bare = results.find((r) => r.stack === 'bare' && r.bound === result.bound);
      if (bare) result.fractionOfBare = round(result.figures.requestsPerSecond / bare.figures.requestsPerSecond, 3);
    }
    return results;
  }

  async stop(): Promise<void> {
    for (const server of this.servers.values()) await server.stop();
  }
}

const JSON_ANSWER_BYTES = Buffer.byteLength(JSON.stringify(JSON_PROBE_ANSWER));

/** Refuses to load a probe whose answer is not `bytes` long: the page probes stand for a page of that size. */
async function checkAnswerBytes(server: RunningServer, probe: LimitProbe, rotation: Rotation, bytes: number): Promise<void> {
  const request = probe.request(0, rotation);
  const response = await fetch(`${server.baseUrl}${request.path}`, { method: request.method, headers: request.headers });
  const body = await response.text();
  if (!response.ok || Buffer.byteLength(body) !== bytes) {
    throw new Error(`bench: ${probe.key} probe answered ${response.status} with ${Buffer.byteLength(body)} bytes, not the page's ${bytes}`);
  }
}

/** "framework probes of bare: json 0.40, pk-select 0.62, upsert 0.58": what the card's stack leaves of bare Fastify. */
export function frameworkLine(probes: readonly ProbeResult[]): string {
  const framework = probes.filter((p) => p.fractionOfBare !== undefined);
  return framework.length
    ? `framework probes of bare: ${framework.map((p) => `${p.bound} ${p.fractionOfBare!.toFixed(2)} (${p.figures.requestsPerSecond} req/s, CPU ${p.figures.cpuMsPerRequest?.toFixed(3) ?? '?'} ms/req)`).join(', ')}`
    : 'framework probes: not measured';
}

/**
 * What a catalog page's bytes alone cost each stack: its json-page probe's req/s ÷ its json
 * probe's (1 = free), for the stacks whose two probes were measured.
 */
export function pageSizeFractions(probes: readonly ProbeResult[]): Partial<Record<ProbeStack, number>> {
  const fractions: Partial<Record<ProbeStack, number>> = {};
  for (const stack of ['bare', 'framework'] as const) {
    const page = probes.find((p) => p.stack === stack && p.bound === 'json-page');
    const small = probes.find((p) => p.stack === stack && p.bound === 'json');
    if (page && small) fractions[stack] = round(page.figures.requestsPerSecond / small.figures.requestsPerSecond, 3);
  }
  return fractions;
}

/** "json-page probe of json probe (12454 bytes against 59): bare 0.89, framework 0.86" (pageSizeFractions). */
export function pageSizeLine(probes: readonly ProbeResult[]): string | undefined {
  const fractions = Object.entries(pageSizeFractions(probes));
  if (!fractions.length) return undefined;
  const page = probes.find((p) => p.bound === 'json-page')?.answerBytes;
  const small = probes.find((p) => p.bound === 'json')?.answerBytes;
  const sizes = page && small ? ` (${page} bytes against ${small})` : '';
  return `json-page probe of json probe${sizes}: ${fractions.map(([stack, fraction]) => `${stack} ${fraction.toFixed(2)}`).join(', ')}`;
}

/**
 * Sets each measured endpoint's fraction of the bare and of the framework probe doing its
 * work (scenario.bound), and of the framework probe answering its size (scenario.sizedBound),
 * and logs them with the database figures.
 */
export function attachLimits(results: EndpointResult[], scenarios: readonly Scenario[], probes: readonly ProbeResult[]): void {
  const fraction = (rps: number, probe: ProbeResult) => ({
    probe: probe.key,
    probeRequestsPerSecond: probe.figures.requestsPerSecond,
    fraction: round(rps / probe.figures.requestsPerSecond, 3),
  });
  for (const result of results) {
    const scenario = scenarios.find((s) => s.key === result.key);
    if (result.status !== 'measured' || !result.service) continue;
    const bare = probes.find((p) => p.stack === 'bare' && p.bound === scenario?.bound);
    const framework = probes.find((p) => p.stack === 'framework' && p.bound === scenario?.bound);
    const sized = probes.find((p) => p.stack === 'framework' && p.bound === scenario?.sizedBound);
    if (bare) result.limit = fraction(result.service.requestsPerSecond, bare);
    if (framework) result.frameworkLimit = fraction(result.service.requestsPerSecond, framework);
    if (sized) result.frameworkSizedLimit = fraction(result.service.requestsPerSecond, sized);
    log(`bench: ${result.label.padEnd(46)} ${limitLine(result)}`);
  }
}

/** "0.31× the json probe (…), 0.85× the framework-json probe (…) | statements …": the line per endpoint against the limits. */
export function limitLine(result: EndpointResult): string {
  const s = result.service!;
  const of = (limit: NonNullable<EndpointResult['limit']>) =>
    `${limit.fraction.toFixed(2)}× the ${limit.probe} probe (${s.requestsPerSecond} of ${limit.probeRequestsPerSecond} req/s)`;
  const limits = [result.limit, result.frameworkLimit, result.frameworkSizedLimit].filter((l) => l !== undefined).map(of);
  return `${limits.length ? limits.join(', ') : 'no limit probe'} | ${databaseFigures(s)}`;
}

/**
 * Statements, round trips and PostgreSQL CPU per request. The service and the baseline send
 * every statement on its own through node-postgres (one Parse/Bind/Execute/Sync each, no
 * multi-statement strings and no pipelining), so round trips equal statements; statements run
 * in parallel on several connections are still one round trip each.
 */
export function databaseFigures(f: ServerFigures): string {
  const statements =
    f.statementsPerRequest === null
      ? 'statements n/a (no pg_stat_statements)'
      : `${f.statementsPerRequest.toFixed(2)} statements and round trips per request (of which BEGIN/COMMIT ${f.transactionControlPerRequest?.toFixed(2)})`;
  return `${statements}, PostgreSQL CPU ${f.postgresCpuMsPerRequest?.toFixed(3) ?? 'n/a'} ms per request`;
}

/** CPU per request of everything a request keeps busy on this machine: the server, PostgreSQL and the load generator. */
function machineCpuMs(f: ServerFigures): number | null {
  return f.cpuMsPerRequest === null || f.postgresCpuMsPerRequest === null ? null : f.cpuMsPerRequest + f.postgresCpuMsPerRequest + f.loadCpuMsPerRequest;
}

/**
 * Why an endpoint reaches the fraction of its probe it does, in CPU: on a machine whose cores
 * the server, PostgreSQL and the load generator share, they run until the cores are full, so
 * the fraction is about the probe's CPU per request over the endpoint's. Then what reaching
 * `minimum` would allow the server, once PostgreSQL and the load generator have taken theirs,
 * beside what bare Fastify spends sending the same statements (the baseline). Undefined when a
 * figure is missing.
 */
export function cpuBudgetLine(endpoint: EndpointResult, probe: ProbeResult, minimum: number): string | undefined {
  const service = endpoint.service;
  const own = service && machineCpuMs(service);
  const probeCpu = machineCpuMs(probe.figures);
  if (!service || !own || !probeCpu) return undefined;
  const allowed = probeCpu / minimum;
  const forServer = allowed - service.postgresCpuMsPerRequest! - service.loadCpuMsPerRequest;
  const baselineServer = endpoint.baseline?.cpuMsPerRequest;
  return (
    `CPU per request ${own.toFixed(3)} ms (server ${service.cpuMsPerRequest!.toFixed(3)}, PostgreSQL ${service.postgresCpuMsPerRequest!.toFixed(3)}, load ${service.loadCpuMsPerRequest.toFixed(3)}) ` +
    `against the ${probe.key} probe's ${probeCpu.toFixed(3)} predicts ${(probeCpu / own).toFixed(2)}×; ${minimum}× allows ${allowed.toFixed(3)} ms, ` +
    `${forServer.toFixed(3)} for the server${baselineServer == null ? '' : ` (bare Fastify sending the same statements: ${baselineServer.toFixed(3)})`}`
  );
}
