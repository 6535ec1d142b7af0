import { join } from 'node:path';
import { freePort } from '../../src/shared/net/free-port.js';
import type { DatabaseMeter } from '../shared/database-meter.js';
import { combine, fmt, measureRuns, type EndpointResult, type RunFigures, type ServerFigures } from '../shared/load.js';
import type { BenchOptions } from '../shared/options.js';
import { PROBE_ROWS } from '../probes/bare.js';
import type { LimitProbeKey, Rotation, Scenario } from '../shared/scenarios.js';
import { startServer, type RunningServer } from '../shared/servers.js';

/** A limit probe: a bare server (bench/probes) loaded like the endpoints. */
interface LimitProbe extends Scenario {
  key: LimitProbeKey;
  /** The built script, relative to dist/bench/probes. */
  script: string;
}

const PROBES: readonly LimitProbe[] = [
  { key: 'json', label: 'probe: bare Fastify, fixed JSON', script: 'json.js', request: () => ({ method: 'GET', path: '/probe', headers: {} }) },
  {
    key: 'pk-select',
    label: 'probe: bare Fastify + pg, primary-key SELECT',
    script: 'pk-select.js',
    request: (i) => ({ method: 'GET', path: `/probe/${(i * 7_919) % PROBE_ROWS}`, headers: {} }),
  },
  {
    key: 'upsert',
    label: 'probe: bare Fastify + pg, upsert',
    script: 'upsert.js',
    request: (i) => ({
      method: 'PUT',
      path: `/probe/${(i * 7_919) % PROBE_ROWS}`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ novel_id: `novel-${i % 200}`, chapter_number: 1 + (i % 30), position_seconds: i % 3600 }),
    }),
  },
];

/** A probe's figures over every measured round, before and after the endpoints. */
export interface ProbeResult {
  key: LimitProbeKey;
  label: string;
  figures: ServerFigures;
}

const log = (line: string) => process.stderr.write(`${line}\n`);

/**
 * The probes, started side by side with the service and the baseline and loaded with the same
 * connections, warm-up and rounds. Each is measured before and after the endpoints, and both
 * measurements count: the endpoints' figures come from between the two, on a machine whose
 * neighbours come and go.
 */
export class LimitProbes {
  private readonly runs = new Map<LimitProbeKey, RunFigures[]>();

  private constructor(private readonly servers: ReadonlyMap<LimitProbeKey, RunningServer>) {}

  static async start(root: string, databaseUrl: string, track: (server: RunningServer) => void): Promise<LimitProbes> {
    const servers = new Map<LimitProbeKey, RunningServer>();
    for (const probe of PROBES) {
      const server = await startServer({
        name: probe.key,
        script: join(root, 'dist/bench/probes', probe.script),
        env: { DATABASE_URL: databaseUrl },
        port: await freePort(),
      });
      track(server);
      servers.set(probe.key, server);
    }
    log(`bench: limit probes ${[...servers].map(([key, s]) => `${key} pid ${s.pid}`).join(', ')}`);
    return new LimitProbes(servers);
  }

  /** One measurement of every probe (warm-up, then the rounds). */
  async measure(options: BenchOptions, rotation: Rotation, meter?: DatabaseMeter): Promise<void> {
    for (const probe of PROBES) {
      const server = this.servers.get(probe.key)!;
      const runs = (await measureRuns([server], probe, rotation, options.connections, options, meter)).get(server)!;
      this.runs.set(probe.key, [...(this.runs.get(probe.key) ?? []), ...runs]);
      log(`bench: ${probe.label.padEnd(46)} ${fmt(combine(runs))}`);
    }
  }

  results(): ProbeResult[] {
    return PROBES.filter((p) => this.runs.has(p.key)).map((p) => ({ key: p.key, label: p.label, figures: combine(this.runs.get(p.key)!) }));
  }

  async stop(): Promise<void> {
    for (const server of this.servers.values()) await server.stop();
  }
}

/** Sets each measured endpoint's fraction of the probe that bounds it (scenario.bound), and logs it with the database figures. */
export function attachLimits(results: EndpointResult[], scenarios: readonly Scenario[], probes: readonly ProbeResult[]): void {
  for (const result of results) {
    const bound = scenarios.find((s) => s.key === result.key)?.bound;
    const probe = probes.find((p) => p.key === bound);
    if (result.status !== 'measured' || !result.service) continue;
    if (probe) {
      const probeRps = probe.figures.requestsPerSecond;
      result.limit = { probe: probe.key, probeRequestsPerSecond: probeRps, fraction: Math.round((result.service.requestsPerSecond / probeRps) * 1000) / 1000 };
    }
    log(`bench: ${result.label.padEnd(46)} ${limitLine(result)}`);
  }
}

/** "0.31× the json probe (…) | statements …": the line per endpoint against the limit. */
export function limitLine(result: EndpointResult): string {
  const s = result.service!;
  const limit = result.limit
    ? `${result.limit.fraction.toFixed(2)}× the ${result.limit.probe} probe (${s.requestsPerSecond} of ${result.limit.probeRequestsPerSecond} req/s)`
    : 'no limit probe';
  return `${limit} | ${databaseFigures(s)}`;
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
