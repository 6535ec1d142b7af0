// `npm run soak`: see docs/performance.md, "Soak". The bench's set-up (own
// database, migrations, seed, the built service); each scenario's capacity and a calibration
// of the mix, measured in this sitting; then every bench scenario and endings chosen at fixed
// rates for --minutes, a webhook receiver on loopback and the service's scheduled jobs
// running; each minute one line of RSS, p99 per endpoint and table sizes; then the verdict
// (soak-verdict.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../src/shared/net/free-port.js';
import { percentile } from '../shared/load.js';
import { parseSoakOptions, type SoakOptions } from '../shared/options.js';
import type { Rotation } from '../shared/scenarios.js';
import { sleep } from '../shared/servers.js';
import { ROOT, withSeededService } from '../shared/service-setup.js';
import {
  DatabaseObserver,
  MachineObserver,
  ProcessObserver,
  TABLE_ALLOWANCES,
  type BackgroundMinute,
  type MachineMinute,
  type TableMinute,
} from './soak-observers.js';
import {
  checkRateOverrides,
  FINISH_RATE,
  FINISH_SCENARIO,
  FixedRateTraffic,
  measureCapacities,
  seedFinishers,
  soakRates,
  SOAK_SCENARIOS,
  RAMP_SECONDS,
  type SoakRates,
  type TrafficMinute,
} from './soak-traffic.js';
import { DEFAULT_RULES, soakVerdict, type EndpointMinute, type MinuteSample, type Verdict } from './soak-verdict.js';
import { issueTokens } from '../shared/token-cache.js';
import { WebhookReceiver } from './webhook-receiver.js';

const log = (line: string) => process.stderr.write(`${line}\n`);
/** Tokens live 600 s: the rotation gets fresh ones this often. */
const TOKEN_REFRESH_MS = 4 * 60_000;
/** After the traffic, how long the receiver may take to get the last events. */
const WEBHOOK_DRAIN_MS = 15_000;

interface SoakMinute extends MinuteSample {
  requestsPerSecond: number;
  rssMaxMb: Record<string, number>;
  /** CPU of each process, in % of one core. */
  cpuPercent: Record<string, number>;
  background: BackgroundMinute;
  machine: MachineMinute;
  statuses: Record<string, Record<string, number>>;
  /** p50 and the slowest answer of each endpoint, beside the judged p99. */
  latencyMs: Record<string, { p50: number; max: number }>;
  samples: string[];
}

async function main(): Promise<number> {
  const options = parseSoakOptions(process.argv.slice(2));
  checkRateOverrides(options.rates);
  const startedAt = new Date();
  // Webhooks go to a receiver on loopback, over http; the service's metrics to a port of their
  // own (production turns them off), for its event-loop delay each minute.
  const metricsPort = await freePort();
  return withSeededService(options.size, { WEBHOOK_ALLOW_INSECURE_URLS: 'true', METRICS_PORT: String(metricsPort) }, async (setup) => {
    const { database, data } = setup;
    const finishRate = options.rates[FINISH_SCENARIO.key] ?? FINISH_RATE;
    await seedFinishers(database.url, data.partnerId, data.novelIds, Math.ceil(finishRate * options.minutes * 60 * 1.1) + 10);
    const service = await setup.startService();
    const receiver = await WebhookReceiver.start();
    setup.defer(() => receiver.close());
    const tokens = await issueTokens(service.baseUrl, data.credentials, options.size.tokensPerCredential);
    receiver.useSecret(await registerEndpoint(service.baseUrl, tokens[0], receiver.url));
    const rotation: Rotation = { tokens, credentials: data.credentials, readers: data.readers, novelIds: data.novelIds, period: data.period };
    const capacity = await measureCapacities(service, rotation, options.capacityRun);
    // The soak's own process sends the traffic: its CPU is what the load costs the machine.
    const rss = new ProcessObserver([
      { name: 'service', pid: service.pid },
      { name: 'load', pid: process.pid },
    ]);
    setup.defer(async () => rss.stop());
    const machine = new MachineObserver(database.postmasterPid, `http://127.0.0.1:${metricsPort}/metrics`);
    setup.defer(async () => machine.stop());
    const calibration = await calibrate(service.baseUrl, capacity, rotation, options.rateFraction, rss, machine);
    const rates = soakRates(capacity, calibration.fraction, options.rates);
    logRates(options, rates, calibration);
    // The seed's and the capacity runs' dirty pages written now, not by the first timed checkpoint during the traffic.
    const checkpointMinutes = await checkpoint(database.url);
    const refresh = setInterval(() => {
      issueTokens(service.baseUrl, data.credentials, options.size.tokensPerCredential).then(
        (fresh) => (rotation.tokens = fresh),
        (error) => log(`soak: token refresh failed: ${error}`),
      );
    }, TOKEN_REFRESH_MS);
    setup.defer(async () => clearInterval(refresh));
    const observer = await DatabaseObserver.open(database.url, database.statementStats);
    setup.defer(() => observer.close());
    const tablesAtStart = observer.tablesNow();
    rss.minute();
    await machine.minute(0);

    const traffic = new FixedRateTraffic(service.baseUrl, rates.perSecond, rotation);
    const trafficStart = Date.now();
    traffic.start();
    observer.startSampling();
    const minutes: SoakMinute[] = [];
    for (let minute = 1; minute <= options.minutes; minute++) {
      await sleep(trafficStart + minute * 60_000 - Date.now());
      const sample = await observeMinute(minute, traffic, rss, receiver, observer, machine);
      minutes.push(sample);
      console.log(minuteLine(sample));
    }
    await traffic.stop();
    clearInterval(refresh);
    absorbTail(minutes.at(-1)!, traffic.takeMinute());
    const finished = minutes.reduce((n, m) => n + (m.statuses[FINISH_SCENARIO.key]?.['200'] ?? 0), 0);
    const drainUntil = Date.now() + WEBHOOK_DRAIN_MS;
    while (receiver.totals().events < finished && Date.now() < drainUntil) await sleep(250);
    const received = receiver.totals();
    const verdict = soakVerdict({
      minutes,
      tablesAtStart,
      allowances: TABLE_ALLOWANCES,
      webhooks: { emitted: finished, delivered: received.events },
      checkpointMinutes,
    });
    const written = writeResult({
      startedAt,
      options,
      rates,
      database: database.description,
      data,
      minutes,
      tablesAtStart,
      received,
      checkpointMinutes,
      calibration,
      verdict,
    });
    for (const note of verdict.notes) console.log(`soak: not judged: ${note}`);
    for (const failure of verdict.failures) console.log(`soak: FAIL ${failure}`);
    console.log(`soak: ${verdict.passed ? 'PASSED' : 'FAILED'} (${written.json})`);
    return verdict.passed ? 0 : 1;
  });
}

async function observeMinute(
  minute: number,
  traffic: FixedRateTraffic,
  rss: ProcessObserver,
  receiver: WebhookReceiver,
  observer: DatabaseObserver,
  machineObserver: MachineObserver,
): Promise<SoakMinute> {
  const answered = traffic.takeMinute();
  const processes = rss.minute();
  const machine = await machineObserver.minute(processes.reduce((n, p) => n + p.cpuPercent, 0));
  const webhooks = receiver.takeMinute();
  const { tables, background } = await observer.minute();
  const endpoints: EndpointMinute[] = [];
  const statuses: SoakMinute['statuses'] = {};
  const samples: string[] = [];
  const latencyMs: SoakMinute['latencyMs'] = {};
  for (const scenario of SOAK_SCENARIOS) {
    const got = answered.get(scenario.key);
    if (!got) continue;
    const responses = got.latenciesMs.length;
    const sorted = Float64Array.from(got.latenciesMs).sort();
    const p99 = percentile(sorted, 0.99);
    if (responses) latencyMs[scenario.key] = { p50: Math.round(percentile(sorted, 0.5) * 10) / 10, max: Math.round(sorted[responses - 1]) };
    endpoints.push({
      key: scenario.key,
      label: scenario.label,
      responses,
      p99Ms: responses ? Math.round(p99 * 10) / 10 : null,
      p50Ms: responses ? Math.round(percentile(sorted, 0.5) * 10) / 10 : null,
      unexpected: Object.entries(got.statuses).reduce((n, [status, count]) => n + (Number(status) >= 200 && Number(status) < 300 ? 0 : count), 0),
      errors: got.errors,
      skipped: got.skipped,
    });
    statuses[scenario.key] = got.statuses;
    samples.push(...got.samples);
  }
  return {
    minute,
    endpoints,
    // The load generator's RSS holds the minute's latencies: shown, not judged.
    processes: processes.filter((p) => p.name !== 'load').map(({ name, rssMb }) => ({ name, rssMb })),
    rssMaxMb: Object.fromEntries(processes.map(({ name, maxMb }) => [name, maxMb])),
    cpuPercent: Object.fromEntries(processes.map(({ name, cpuPercent }) => [name, cpuPercent])),
    tables: tables.map(({ autovacuums: _, ...reading }) => reading),
    webhooks,
    requestsPerSecond: Math.round(endpoints.reduce((n, e) => n + e.responses, 0) / 60),
    background,
    machine,
    statuses,
    latencyMs,
    samples,
  };
}

/** The answers that arrived after the last minute (requests in flight when the traffic stopped) count in it, for errors and endings. */
function absorbTail(last: SoakMinute, tail: Map<string, TrafficMinute>): void {
  for (const endpoint of last.endpoints) {
    const got = tail.get(endpoint.key);
    if (!got) continue;
    for (const [status, count] of Object.entries(got.statuses)) {
      last.statuses[endpoint.key][status] = (last.statuses[endpoint.key][status] ?? 0) + count;
      if (Number(status) < 200 || Number(status) >= 300) endpoint.unexpected += count;
    }
    endpoint.errors += got.errors;
    last.samples.push(...got.samples);
  }
}

/** The share of the capacities the calibration traffic runs at: well below saturation, where the machine's use grows with the rate. */
const CALIBRATION_FRACTION = 0.25;
/** How long the calibration traffic is measured, after its ramp. */
const CALIBRATION_SECONDS = 30;

/** The share of the capacities that uses the target share of the machine, and what the calibration measured. */
interface Calibration {
  fraction: number;
  requestsPerSecond: number;
  /** The service's CPU, in % of one core (one event loop). */
  servicePercent: number;
  /** The whole machine's busy CPU (service, load, PostgreSQL, anyone else), in % of one core. */
  machinePercent: number;
}

/**
 * The share of the capacities that uses `target` of the machine. Each capacity is measured
 * alone, closed loop: 32 connections kept busy. The mix sent open loop, requests spread
 * evenly, costs more per request (a wake-up and a write per request instead of many per
 * read), so the shares do not add up to the machine: at 0.5 of them, a quick soak on
 * 2026-11-26 kept the machine 84 % busy and queued for seconds. So the mix (no endings:
 * each finishes a reader once) runs at CALIBRATION_FRACTION for CALIBRATION_SECONDS after
 * its ramp, and its use is measured: the busier of the service's one event loop (% of a core)
 * and the whole machine (% of all cores). Below saturation the use grows in proportion to
 * the rate, so `target` of the machine is CALIBRATION_FRACTION × target ÷ use.
 */
async function calibrate(
  baseUrl: string,
  capacity: Readonly<Record<string, number>>,
  rotation: Rotation,
  target: number,
  processes: ProcessObserver,
  machine: MachineObserver,
): Promise<Calibration> {
  const probe = soakRates(capacity, CALIBRATION_FRACTION, { [FINISH_SCENARIO.key]: 0 });
  const traffic = new FixedRateTraffic(baseUrl, probe.perSecond, rotation);
  traffic.start();
  await sleep(RAMP_SECONDS * 1000);
  traffic.takeMinute();
  processes.minute();
  await machine.minute(0);
  await sleep(CALIBRATION_SECONDS * 1000);
  const answered = [...traffic.takeMinute().values()].reduce((n, m) => n + m.latenciesMs.length, 0);
  const own = processes.minute();
  const ownPercent = own.reduce((n, p) => n + p.cpuPercent, 0);
  const others = await machine.minute(ownPercent);
  await traffic.stop();
  const servicePercent = own.find((p) => p.name === 'service')!.cpuPercent;
  const machinePercent = ownPercent + (others.postgresPercent ?? 0) + (others.othersPercent ?? 0);
  const use = Math.max(servicePercent / 100, machinePercent / (100 * cpus().length));
  const calibration = {
    fraction: Math.round(Math.min(1, (CALIBRATION_FRACTION * target) / use) * 1000) / 1000,
    requestsPerSecond: Math.round(answered / CALIBRATION_SECONDS),
    servicePercent,
    machinePercent,
  };
  log(
    `soak: calibration at ${CALIBRATION_FRACTION} of the capacities: ${calibration.requestsPerSecond} req/s, service ${servicePercent} % of a core, ` +
      `machine ${machinePercent} % of a core (of ${cpus().length * 100} %): ${target} of the machine is ${calibration.fraction} of the capacities`,
  );
  return calibration;
}

function logRates(options: SoakOptions, rates: SoakRates, calibration: Calibration): void {
  const total = Object.values(rates.perSecond).reduce((a, b) => a + b, 0);
  log(
    `soak: ${options.minutes} min at ${Math.round(total)} req/s in all (${calibration.fraction} of the capacities just measured, shared equally: ${options.rateFraction} of the machine)`,
  );
  log(
    `soak: req/s ${Object.entries(rates.perSecond)
      .map(([k, r]) => `${k} ${r}`)
      .join(', ')}`,
  );
}

function minuteLine(m: SoakMinute): string {
  const b = m.background;
  const bad = m.endpoints.reduce((n, e) => n + e.unexpected + e.errors, 0);
  const table = (name: string) => {
    const t = m.tables.find((x) => x.table === name);
    return t ? `${name} ${mb(t.bytes)} MB ${t.liveRows}+${t.deadRows}d` : '';
  };
  return [
    `soak: minute ${m.minute}: ${m.requestsPerSecond} req/s, ${bad} errors, RSS ${m.processes.map((p) => `${p.name} ${p.rssMb} MB`).join(', ')}, CPU ${Object.entries(
      m.cpuPercent,
    )
      .map(([name, cpu]) => `${name} ${cpu} %`)
      .join(', ')}, webhooks ${m.webhooks.received}`,
    `  p99 ms (p50): ${m.endpoints.map((e) => `${e.key} ${e.p99Ms ?? '–'} (${m.latencyMs[e.key]?.p50 ?? '–'})`).join(', ')}`,
    `  tables: ${['playback_positions', 'reading_activity', 'webhook_deliveries', 'entitlement_counts', 'engagement_day_counts', 'stream_url_issues'].map(table).filter(Boolean).join(', ')}`,
    `  database: ${b.checkpoints} checkpoints (${b.checkpointMs} ms, ${b.buffersWritten} buffers), WAL ${b.walMb} MB (${b.walFullPageImages} full pages), ` +
      `autovacuum ${b.autovacuumed.join(' ') || 'none'}, jobs ${
        Object.entries(b.jobs)
          .map(([job, j]) => `${job} ${j.calls}× ${j.ms} ms`)
          .join(', ') || 'none'
      }, load ${b.loadAverage}` +
      (b.slowStatements.length
        ? `, slow: ${b.slowStatements
            .slice(0, 2)
            .map((s) => `${s.ms} ms ${s.what}`)
            .join('; ')}`
        : ''),
    `  machine: CPU PostgreSQL ${m.machine.postgresPercent ?? '?'} %, other processes ${m.machine.othersPercent ?? '?'} %; ` +
      `event-loop delay p99/max ms: service ${m.machine.serviceLoopDelayMs ? `${m.machine.serviceLoopDelayMs.p99}/${m.machine.serviceLoopDelayMs.max}` : '?'}, ` +
      `load ${m.machine.loadLoopDelayMs.p99}/${m.machine.loadLoopDelayMs.max}`,
    ...m.samples.map((s) => `  unexpected: ${s}`),
  ].join('\n');
}

/**
 * Writes every dirty page now, and answers the database's checkpoint period in minutes (the
 * span the verdict judges drift over).
 */
async function checkpoint(url: string): Promise<number> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    await db.query('CHECKPOINT');
    const { rows } = await db.query<{ seconds: number }>(`SELECT setting::int AS seconds FROM pg_settings WHERE name = 'checkpoint_timeout'`);
    return rows[0].seconds / 60;
  } finally {
    await db.end();
  }
}

/** Registers the receiver for novel.finished through the API, as a partner would; returns the signing secret. */
async function registerEndpoint(baseUrl: string, token: string, url: string): Promise<string> {
  const response = await fetch(`${baseUrl}/platform/v1/webhook-endpoints`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url, events: ['novel.finished'] }),
  });
  if (response.status !== 201) throw new Error(`soak: registering the webhook endpoint answered ${response.status} ${await response.text()}`);
  return ((await response.json()) as { secret: string }).secret;
}

interface ResultInput {
  startedAt: Date;
  options: SoakOptions;
  rates: SoakRates;
  database: string;
  data: { rowCounts: Record<string, number> };
  minutes: SoakMinute[];
  tablesAtStart: TableMinute[];
  received: { events: number; duplicates: number };
  checkpointMinutes: number;
  calibration: Calibration;
  verdict: Verdict;
}

/** bench/results/<time>-soak[-quick].json and .md, beside the bench's results. */
function writeResult(input: ResultInput): { json: string; markdown: string } {
  const stamp = input.startedAt.toISOString().replace(/[:.]/g, '-');
  const dir = join(ROOT, 'bench/results');
  mkdirSync(dir, { recursive: true });
  const json = join(dir, `${stamp}-soak${input.options.quick ? '-quick' : ''}.json`);
  const markdown = json.replace(/\.json$/, '.md');
  const command = `npm run soak -- --minutes=${input.options.minutes}${input.options.quick ? ' --quick' : ''}`;
  const document = {
    started_at: input.startedAt.toISOString(),
    command,
    machine: { cpus: cpus().length, cpu_model: cpus()[0]?.model, memory_gb: Math.round(totalmem() / 2 ** 30), node: process.version },
    database: input.database,
    rates: {
      requests_per_second: input.rates.perSecond,
      capacity_measured: input.rates.capacity,
      capacity_run: input.options.capacityRun,
      calibration: input.calibration,
      machine_fraction: input.options.rateFraction,
    },
    rules: { ...DEFAULT_RULES, checkpointMinutes: input.checkpointMinutes },
    data: { rows: input.data.rowCounts },
    webhooks: input.received,
    tables_at_start: input.tablesAtStart,
    minutes: input.minutes,
    verdict: input.verdict,
  };
  writeFileSync(json, JSON.stringify(document, null, 2) + '\n');
  writeFileSync(markdown, summary(command, input));
  return { json, markdown };
}

function summary(command: string, input: ResultInput): string {
  const { minutes, verdict } = input;
  const keys = minutes[0]?.endpoints.map((e) => e.key) ?? [];
  const lines = [
    `# Soak of ${input.startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    '',
    `\`${command}\`: ${verdict.passed ? '**passed**' : '**failed**'}. Rates: ${input.calibration.fraction} of the capacities measured before the traffic, shared equally, to use ${input.options.rateFraction} of the machine (calibrated at ${input.calibration.requestsPerSecond} req/s: service ${input.calibration.servicePercent} % of a core, machine ${input.calibration.machinePercent} %); webhook events received ${input.received.events}, repeated ${input.received.duplicates}.`,
    '',
    '| minute | req/s | errors | RSS MB | webhooks | checkpoints | WAL MB | load | ' + keys.map((k) => `p99 ${k}`).join(' | ') + ' |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|' + keys.map(() => '---:').join('|') + '|',
    ...minutes.map(
      (m) =>
        `| ${m.minute} | ${m.requestsPerSecond} | ${m.endpoints.reduce((n, e) => n + e.unexpected + e.errors, 0)} | ${m.processes.map((p) => p.rssMb).join(', ')} | ` +
        `${m.webhooks.received} | ${m.background.checkpoints} | ${m.background.walMb} | ${m.background.loadAverage} | ` +
        keys.map((k) => m.endpoints.find((e) => e.key === k)?.p99Ms ?? '–').join(' | ') +
        ' |',
    ),
    '',
    '| table | rows at start | rows at end | dead at end | MB at start | MB at end |',
    '|---|---:|---:|---:|---:|---:|',
    ...input.tablesAtStart.map((start) => {
      const end = minutes.at(-1)?.tables.find((t) => t.table === start.table);
      return `| ${start.table} | ${start.liveRows} | ${end?.liveRows ?? '–'} | ${end?.deadRows ?? '–'} | ${mb(start.bytes)} | ${end ? mb(end.bytes) : '–'} |`;
    }),
    '',
    ...verdict.failures.map((f) => `- FAIL ${f}`),
    ...verdict.notes.map((n) => `- not judged: ${n}`),
    '',
  ];
  return lines.join('\n');
}

const mb = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;

process.exitCode = await main().catch((error) => {
  log(`soak failed: ${(error as Error).stack ?? error}`);
  return 1;
});
