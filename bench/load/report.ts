import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem, loadavg } from 'node:os';
import { join } from 'node:path';
import { round } from '../shared/round.js';
import type { DatabaseUse } from '../shared/database-meter.js';
import type { EndingStatementCost } from './ending-cost.js';
import type { ExplainedStatement } from './explain.js';
import { cpuBudgetLine, frameworkLine, pageSizeFractions, pageSizeLine, type ProbeResult } from './limits.js';
import type { EndpointResult, ServerFigures } from '../shared/load.js';
import type { BenchOptions } from '../shared/options.js';
import type { ProfileSummary } from './profile.js';
import { SCENARIOS, type LimitProbeKey } from '../shared/scenarios.js';
import type { SeededData } from '../shared/seed.js';
import type { SqlComparison } from './sql-check.js';
import type { TokenCacheCheck } from '../shared/token-cache.js';
import type { LongPollCheck } from './long-polls.js';
import { LONG_POLL_TARGETS } from './long-polls.js';
import type { UnlockJobCheck } from './unlock-job.js';
import type { WebhookBacklogCheck } from './webhook-backlog.js';
import { WEBHOOK_BACKLOG_TARGETS } from './webhook-backlog.js';

export interface ReportInput {
  root: string;
  startedAt: Date;
  options: BenchOptions;
  /** The Node binary the servers ran on (--node, else the bench's own). */
  serversNode: { path: string; version: string };
  database: string;
  /** What the database did per second with no load, taken out of every window's figures. */
  databaseIdle: DatabaseUse;
  data: SeededData;
  results: EndpointResult[];
  probes: ProbeResult[];
  sql: SqlComparison[];
  plans: ExplainedStatement[];
  tokenCache: TokenCacheCheck;
  unlockJob: UnlockJobCheck;
  webhookBacklog: WebhookBacklogCheck;
  longPolls: LongPollCheck;
  /** The engagement report's ending statement, its answer apart (absent when --only leaves the report out). */
  endingCost?: EndingStatementCost;
  /** --profile: the service over all endpoints' load and per endpoint, the baseline, the framework probe per probe. */
  profile?: {
    service?: ProfileSummary;
    endpoints?: Record<string, ProfileSummary | undefined>;
    baseline?: ProfileSummary;
    framework?: Record<string, ProfileSummary | undefined>;
  };
}

/** The performance targets set for the service, checked against the figures (never asserted by tests). */
export const TARGETS = {
  minRatio: 0.9,
  maxP99Ratio: 1.5,
  engagementP99Ms: 200,
  rssMb: 250,
  /** Least fraction of the bare limit probe that bounds an endpoint (scenario.bound). */
  minLimitFraction: { json: 0.25, 'pk-select': 0.65, upsert: 0.6 } satisfies Partial<Record<LimitProbeKey, number>>,
  /** Least fraction of the framework probe doing the same work (issue 41: what is ours of the cost, on the card's stack). */
  minFrameworkFraction: { json: 0.8 } satisfies Partial<Record<LimitProbeKey, number>>,
  /** Statements per request, rate limiting included: on average over the hot reads, and on the playback PUT. */
  maxStatementsPerHotRead: 1,
  maxStatementsPerWrite: 1,
  /**
   * Statements per request are counted over a window and netted of the idle rate; the
   * background jobs' statements are not steady, so a few thousandths remain (1.003 for the
   * one-statement PUT). A count within this of its limit meets it.
   */
  statementCountSlack: 0.01,
};

/** Writes bench/results/<timestamp>.json and .svg, prints the table; returns the paths. */
export function writeReport(input: ReportInput): { json: string; svg: string } {
  const stamp = input.startedAt.toISOString().replace(/[:.]/g, '-').replace('Z', 'Z');
  const dir = join(input.root, 'bench/results');
  mkdirSync(dir, { recursive: true });
  const json = join(dir, `${stamp}${input.options.quick ? '-quick' : ''}${input.options.scale > 1 ? `-x${input.options.scale}` : ''}.json`);
  const svg = json.replace(/\.json$/, '.svg');
  const targets = checkTargets(input.results, input.probes, input.tokenCache);
  const document = {
    started_at: input.startedAt.toISOString(),
    command: commandOf(input.options),
    machine: {
      cpus: cpus().length,
      cpu_model: cpus()[0]?.model,
      memory_gb: Math.round(totalmem() / 2 ** 30),
      load_average_at_end: loadavg().map((n) => round(n, 2)),
      // The servers' Node (--node); the bench's own, which loads them, beside it.
      node: input.serversNode.version,
      node_path: input.serversNode.path,
      bench_node: process.version,
    },
    database: input.database,
    database_idle_per_second: input.databaseIdle,
    settings: {
      connections: input.options.connections,
      duration_seconds_per_round: input.options.durationSeconds,
      warmup_seconds: input.options.warmupSeconds,
      rounds: input.options.rounds,
      tokens: input.options.size.credentials * input.options.size.tokensPerCredential,
      credentials: input.options.size.credentials,
    },
    data: { rows: input.data.rowCounts, engagement_period: input.data.period, rotated_readers: input.data.readers.length },
    endpoints: input.results,
    limit_probes: input.probes,
    /** What the card's stack leaves of bare Fastify, per kind of work: the framework probe's req/s ÷ the bare probe's. */
    framework_fraction_of_bare: Object.fromEntries(input.probes.filter((p) => p.fractionOfBare !== undefined).map((p) => [p.bound, p.fractionOfBare])),
    /** What a catalog page's bytes cost each stack: its json-page probe's req/s ÷ its json probe's (sizes in limit_probes' answerBytes). */
    json_page_fraction_of_json: pageSizeFractions(input.probes),
    targets,
    token_cache: input.tokenCache,
    chapter_unlock_job: input.unlockJob,
    webhook_backlog: { ...input.webhookBacklog, targets: WEBHOOK_BACKLOG_TARGETS },
    long_polls: { ...input.longPolls, targets: LONG_POLL_TARGETS },
    engagement_ending_cost: input.endingCost,
    sql: input.sql,
    plans: input.plans,
    profile: input.profile,
  };
  writeFileSync(json, JSON.stringify(document, null, 2) + '\n');
  writeFileSync(svg, chart(input.results, `${commandOf(input.options)} · ${input.startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`));
  console.log(markdownTable(input.results));
  console.log('');
  console.log(limitTable(input.results, input.probes));
  console.log('');
  console.log(frameworkLine(input.probes));
  const pageSize = pageSizeLine(input.probes);
  if (pageSize) console.log(pageSize);
  for (const line of targets.lines) console.log(line);
  for (const line of backgroundWorkLines(input.webhookBacklog, input.longPolls)) console.log(line);
  for (const check of input.sql) {
    if (check.onlyInService.length || check.onlyInBaseline.length) {
      console.log(
        `sql: ${check.key}: statements differ (service only: ${check.onlyInService.length}, baseline only: ${check.onlyInBaseline.length}); see the JSON`,
      );
    }
  }
  return { json, svg };
}

/** The background work's figures against their targets (issue 25): they do not depend on the endpoints' load. */
function backgroundWorkLines(backlog: WebhookBacklogCheck, polls: LongPollCheck): string[] {
  const mark = (met: boolean) => (met ? 'met' : 'NOT MET');
  return [
    `target webhook claim behind ${backlog.backlog} due deliveries <= ${WEBHOOK_BACKLOG_TARGETS.claimMs} ms (median): ${backlog.claimMs.median} ms ${mark(backlog.claimMs.median <= WEBHOOK_BACKLOG_TARGETS.claimMs)}`,
    ...(backlog.slowClaim
      ? [`  the claim's slowest plan nodes: ${backlog.slowClaim.plan.join('; ')}; the deliveries table: ${JSON.stringify(backlog.slowClaim.table)}`]
      : []),
    `target another partner's event delivered <= ${WEBHOOK_BACKLOG_TARGETS.otherPartnerDeliveryMs} ms: ${backlog.otherPartnerDeliveryMs.max} ms at most ${mark(backlog.otherPartnerDeliveryMs.max <= WEBHOOK_BACKLOG_TARGETS.otherPartnerDeliveryMs)}`,
    `target feed reads per event with ${polls.polls} waiting polls <= ${LONG_POLL_TARGETS.feedReadsPerEvent}: ${polls.feedReadsPerEvent} ${mark(polls.feedReadsPerEvent <= LONG_POLL_TARGETS.feedReadsPerEvent)}`,
  ];
}

export function commandOf(options: BenchOptions): string {
  const flags = [
    options.quick && '--quick',
    options.profile && '--profile',
    options.only && `--only=${[...options.only].join(',')}`,
    options.scale > 1 && `--scale=${options.scale}`,
    options.node && `--node=${options.node}`,
  ].filter(Boolean);
  return `npm run bench${flags.length ? ` -- ${flags.join(' ')}` : ''}`;
}

export interface TargetCheck {
  lines: string[];
  met: Record<string, boolean | null>;
}

export function checkTargets(results: EndpointResult[], probes: ProbeResult[], tokenCache: TokenCacheCheck): TargetCheck {
  const measured = results.filter((r) => r.status === 'measured' && r.service);
  const lines: string[] = [];
  const met: Record<string, boolean | null> = {};
  const line = (ok: boolean | null, text: string) => lines.push(`target ${ok === null ? 'n/a    ' : ok ? 'met    ' : 'NOT met'} ${text}`);
  /** For a fraction short of its target, what the target allows in CPU (cpuBudgetLine). */
  const shortfall = (r: EndpointResult, probe: string, fraction: number, minimum: number) => {
    const probeResult = probes.find((p) => p.key === probe);
    const budget = fraction < minimum && probeResult ? cpuBudgetLine(r, probeResult, minimum) : undefined;
    return budget ? `; ${budget}` : '';
  };
  for (const r of measured) {
    const ok = r.ratio === undefined ? null : r.ratio >= TARGETS.minRatio && r.p99Ratio !== undefined && r.p99Ratio <= TARGETS.maxP99Ratio;
    met[r.key] = ok;
    line(
      ok,
      `${r.label}: same-statements ratio ${r.ratio?.toFixed(2) ?? 'n/a'} (≥ ${TARGETS.minRatio}), p99 ×${r.p99Ratio?.toFixed(2) ?? 'n/a'} (≤ ${TARGETS.maxP99Ratio})`,
    );
  }
  for (const r of measured.filter((m) => m.limit)) {
    const { probe, fraction } = r.limit!;
    const minimum = (TARGETS.minLimitFraction as Partial<Record<LimitProbeKey, number>>)[probe as LimitProbeKey];
    if (minimum === undefined) continue;
    met[`${r.key}_limit`] = fraction >= minimum;
    line(fraction >= minimum, `${r.label}: ${fraction.toFixed(2)}× the ${probe} probe (≥ ${minimum})${shortfall(r, probe, fraction, minimum)}`);
  }
  const frameworkMinimum = TARGETS.minFrameworkFraction as Partial<Record<LimitProbeKey, number>>;
  for (const r of measured.filter((m) => m.frameworkLimit)) {
    const bound = SCENARIOS.find((scenario) => scenario.key === r.key)?.bound;
    const minimum = bound && frameworkMinimum[bound];
    if (minimum === undefined) continue;
    const { probe, fraction } = r.frameworkLimit!;
    met[`${r.key}_framework_limit`] = fraction >= minimum;
    line(fraction >= minimum, `${r.label}: ${fraction.toFixed(2)}× the ${probe} probe (≥ ${minimum})${shortfall(r, probe, fraction, minimum)}`);
  }
  checkStatements(measured, met, line);
  const failed = [...measured.map((r) => ({ label: r.label, f: r.service! })), ...probes.map((p) => ({ label: p.label, f: p.figures }))].filter(
    ({ f }) => f.non2xx + f.errors > 0,
  );
  met.non2xx = measured.length ? failed.length === 0 : null;
  line(
    met.non2xx,
    `zero non-2xx answers and errors: ${failed.length === 0 ? 'none' : failed.map(({ label, f }) => `${label} ${f.non2xx} non-2xx, ${f.errors} errors`).join('; ')}`,
  );
  const engagement = measured.find((r) => r.key === 'engagement');
  if (engagement?.singleClient) {
    // The latency one caller sees; under the scenario's concurrent load it also queues for the machine's cores.
    const { p50Ms, p99Ms, requests } = engagement.singleClient.service;
    met.engagement_latency = p99Ms <= TARGETS.engagementP99Ms;
    lines.push(
      `target ${met.engagement_latency ? 'met    ' : 'NOT met'} engagement report, one request at a time: p99 ${p99Ms} ms (≤ ${TARGETS.engagementP99Ms} ms), p50 ${p50Ms} ms over ${requests} requests; ` +
        `p99 ${engagement.service!.p99Ms} ms under ${engagement.connections} concurrent requests`,
    );
  } else {
    met.engagement_latency = null;
    lines.push('target n/a     engagement report: not available on this build');
  }
  met.repeat_token = tokenCache.met;
  lines.push(
    `target ${tokenCache.met ? 'met    ' : 'NOT met'} repeat token: ${tokenCache.repeatUsPerRequest} us of service CPU per request vs ${tokenCache.firstUseUsPerRequest} us on first use (one ES256 verification: ${tokenCache.es256VerifyUs} us)`,
  );
  const rss = Math.max(...measured.map((r) => r.service!.rssMaxMb ?? 0));
  met.rss = measured.length ? rss <= TARGETS.rssMb : null;
  lines.push(`target ${met.rss ? 'met    ' : 'NOT met'} service RSS under load: max ${rss} MB (≤ ${TARGETS.rssMb} MB)`);
  return { lines, met };
}

/** At most one statement per hot read on average (over the bounded reads) and per playback PUT, rate limiting included. */
function checkStatements(measured: EndpointResult[], met: Record<string, boolean | null>, line: (ok: boolean | null, text: string) => void): void {
  const perRequest = (r: EndpointResult) => `${r.key} ${r.service!.statementsPerRequest!.toFixed(2)}`;
  const counted = measured.filter((r) => r.limit && r.service!.statementsPerRequest !== null);
  if (counted.length === 0) {
    met.statements_per_hot_read = null;
    line(null, 'statements per request: not counted (pg_stat_statements unavailable)');
    return;
  }
  const reads = counted.filter((r) => r.limit!.probe !== 'upsert');
  const mean = reads.reduce((n, r) => n + r.service!.statementsPerRequest!, 0) / reads.length;
  met.statements_per_hot_read = reads.length ? mean <= TARGETS.maxStatementsPerHotRead + TARGETS.statementCountSlack : null;
  line(
    met.statements_per_hot_read,
    `statements per hot read: ${mean.toFixed(2)} on average (≤ ${TARGETS.maxStatementsPerHotRead}; ${reads.map(perRequest).join(', ')})`,
  );
  for (const write of counted.filter((r) => r.limit!.probe === 'upsert')) {
    // A scenario that repeats another with one more feature may cost one statement more (issue 37).
    const plain = SCENARIOS.find((scenario) => scenario.key === write.key)?.sameWorkAs;
    const plainFigures = counted.find((r) => r.key === plain)?.service;
    const limit = plainFigures ? repeatedWriteStatementLimit(plainFigures, write.service!) : TARGETS.maxStatementsPerWrite;
    met[`${write.key}_statements`] = write.service!.statementsPerRequest! <= limit + TARGETS.statementCountSlack;
    line(
      met[`${write.key}_statements`],
      `statements per ${write.label}: ${write.service!.statementsPerRequest!.toFixed(3)} (≤ ${limit.toFixed(3)}${plainFigures ? `, one more than ${plain} at this one's req/s` : ''})`,
    );
  }
}

/**
 * What a write that repeats `plain` with one more feature may send per request: one statement
 * more. What `plain` sends above its own limit is work per second, not per request (rate-limit
 * leases, background statements the idle rate does not net out: 8–14 a second in every sitting
 * of 2026-11-29), so it is spread over this write's requests: the slower write would otherwise
 * fail on a slow machine (2.018 against 2.007 at 709 and 1 163 req/s).
 */
export function repeatedWriteStatementLimit(
  plain: Pick<ServerFigures, 'statementsPerRequest' | 'requestsPerSecond'>,
  write: Pick<ServerFigures, 'requestsPerSecond'>,
): number {
  const perSecond = Math.max(0, (plain.statementsPerRequest ?? TARGETS.maxStatementsPerWrite) - TARGETS.maxStatementsPerWrite) * plain.requestsPerSecond;
  return TARGETS.maxStatementsPerWrite + 1 + (write.requestsPerSecond > 0 ? perSecond / write.requestsPerSecond : 0);
}

/** Each endpoint against the probes that bound it (bare and framework), with what it asks of the database. */
export function limitTable(results: EndpointResult[], probes: ProbeResult[]): string {
  const rows = [
    '| endpoint | req/s | limit probe | probe req/s | fraction | framework probe req/s | fraction of framework | statements/req | round trips/req | BEGIN/COMMIT per req | PG CPU ms/req | CPU ms/req |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const cell = (n: number | null | undefined, digits: number) => (n === null || n === undefined ? '–' : n.toFixed(digits));
  const row = (label: string, rps: number, probe: string, probeRps: string, fraction: string, framework: string, ofFramework: string, f: ServerFigures) =>
    `| \`${label}\` | ${rps} | ${probe} | ${probeRps} | ${fraction} | ${framework} | ${ofFramework} | ${cell(f.statementsPerRequest, 2)} | ${cell(f.statementsPerRequest, 2)} | ${cell(f.transactionControlPerRequest, 2)} | ${cell(f.postgresCpuMsPerRequest, 3)} | ${cell(f.cpuMsPerRequest, 3)} |`;
  for (const p of probes) {
    // A framework probe's fraction is of the bare probe doing the same work: the card's cost.
    const bare = probes.find((b) => b.stack === 'bare' && b.bound === p.bound);
    const fraction = p.stack === 'bare' ? '1' : cell(p.fractionOfBare, 2);
    rows.push(
      row(
        p.label,
        p.figures.requestsPerSecond,
        p.stack === 'bare' ? p.key : (bare?.key ?? '–'),
        `${p.figures.rounds.join(', ')} (rounds)`,
        fraction,
        '–',
        '–',
        p.figures,
      ),
    );
  }
  for (const r of results) {
    if (r.status !== 'measured' || !r.service) continue;
    const sized = r.frameworkSizedLimit;
    rows.push(
      row(
        r.label,
        r.service.requestsPerSecond,
        r.limit?.probe ?? '–',
        r.limit ? String(r.limit.probeRequestsPerSecond) : '–',
        r.limit ? r.limit.fraction.toFixed(2) : '–',
        // The catalog page's second framework probe, of its size (scenario.sizedBound), in the same cells.
        [r.frameworkLimit && String(r.frameworkLimit.probeRequestsPerSecond), sized && `${sized.probe}: ${sized.probeRequestsPerSecond}`]
          .filter(Boolean)
          .join('; ') || '–',
        [r.frameworkLimit?.fraction.toFixed(2), sized && `${sized.probe}: ${sized.fraction.toFixed(2)}`].filter(Boolean).join('; ') || '–',
        r.service,
      ),
    );
  }
  // Round trips equal statements with node-postgres: see databaseFigures in limits.ts.
  return rows.join('\n');
}

export function markdownTable(results: EndpointResult[]): string {
  const rows = [
    '| endpoint | service req/s | p50 ms | p99 ms | non-2xx | CPU ms/req | baseline req/s | p50 ms | p99 ms | CPU ms/req | ratio | p99 × | CPU × | RSS max MB |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    if (r.status !== 'measured' || !r.service) {
      rows.push(`| \`${r.label}\` | not available | | | | | | | | | | | | |`);
      continue;
    }
    const s = r.service;
    const b = r.baseline;
    rows.push(
      `| \`${r.label}\` | ${s.requestsPerSecond} | ${s.p50Ms} | ${s.p99Ms} | ${s.non2xx + s.errors} | ${s.cpuMsPerRequest ?? '–'} | ${b?.requestsPerSecond ?? '–'} | ${b?.p50Ms ?? '–'} | ${b?.p99Ms ?? '–'} | ${b?.cpuMsPerRequest ?? '–'} | ${r.ratio?.toFixed(2) ?? '–'} | ${r.p99Ratio?.toFixed(2) ?? '–'} | ${r.cpuRatio?.toFixed(2) ?? '–'} | ${s.rssMaxMb ?? '–'} |`,
    );
  }
  return rows.join('\n');
}

/** A hand-written SVG: per endpoint, req/s of both servers (left) and p99 (right), with the ratios. */
export function chart(results: EndpointResult[], subtitle: string): string {
  const rowHeight = 44;
  const top = 70;
  const labelWidth = 300;
  const panelWidth = 250;
  const gap = 70;
  const width = labelWidth + panelWidth * 2 + gap * 2 + 20;
  const height = top + results.length * rowHeight + 40;
  const measured = results.filter((r) => r.service);
  const maxRps = Math.max(1, ...measured.flatMap((r) => [r.service!.requestsPerSecond, r.baseline?.requestsPerSecond ?? 0]));
  const maxP99 = Math.max(1, ...measured.flatMap((r) => [r.service!.p99Ms, r.baseline?.p99Ms ?? 0]));
  const rpsX = labelWidth;
  const p99X = labelWidth + panelWidth + gap;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="10" y="22" font-size="16" font-weight="bold">Service vs bare baseline, same SQL, same load</text>`,
    `<text x="10" y="40" fill="#555">${escape(subtitle)}</text>`,
    `<text x="${rpsX}" y="${top - 12}" font-weight="bold">req/s (higher is better)</text>`,
    `<text x="${p99X}" y="${top - 12}" font-weight="bold">p99 ms (lower is better)</text>`,
    `<rect x="${width - 250}" y="12" width="12" height="12" fill="#2b6cb0"/><text x="${width - 233}" y="22">service</text>`,
    `<rect x="${width - 170}" y="12" width="12" height="12" fill="#a0aec0"/><text x="${width - 153}" y="22">baseline</text>`,
  ];
  results.forEach((r, index) => {
    const y = top + index * rowHeight;
    parts.push(`<text x="10" y="${y + 18}">${escape(r.label)}</text>`);
    if (!r.service) {
      parts.push(`<text x="${rpsX}" y="${y + 18}" fill="#888">not available on this build</text>`);
      return;
    }
    const bar = (x: number, yy: number, value: number, max: number, color: string, text: string) => {
      const w = Math.max(1, (value / max) * (panelWidth - 60));
      return `<rect x="${x}" y="${yy}" width="${w.toFixed(1)}" height="13" fill="${color}"/><text x="${(x + w + 4).toFixed(1)}" y="${yy + 11}" fill="#333">${text}</text>`;
    };
    parts.push(bar(rpsX, y + 4, r.service.requestsPerSecond, maxRps, '#2b6cb0', String(r.service.requestsPerSecond)));
    parts.push(bar(p99X, y + 4, r.service.p99Ms, maxP99, '#2b6cb0', r.service.p99Ms.toFixed(1)));
    if (r.baseline) {
      parts.push(bar(rpsX, y + 19, r.baseline.requestsPerSecond, maxRps, '#a0aec0', String(r.baseline.requestsPerSecond)));
      parts.push(bar(p99X, y + 19, r.baseline.p99Ms, maxP99, '#a0aec0', r.baseline.p99Ms.toFixed(1)));
      const good = (r.ratio ?? 0) >= TARGETS.minRatio;
      const goodP99 = (r.p99Ratio ?? Infinity) <= TARGETS.maxP99Ratio;
      parts.push(`<text x="10" y="${y + 33}" fill="${good ? '#276749' : '#c53030'}">ratio ${r.ratio!.toFixed(2)}</text>`);
      parts.push(`<text x="90" y="${y + 33}" fill="${goodP99 ? '#276749' : '#c53030'}">p99 ×${r.p99Ratio!.toFixed(2)}</text>`);
    }
    if (r.service.non2xx + r.service.errors > 0) parts.push(`<text x="180" y="${y + 33}" fill="#c53030">non-2xx ${r.service.non2xx + r.service.errors}</text>`);
  });
  parts.push(
    `<text x="10" y="${height - 12}" fill="#555">Targets: ratio ≥ ${TARGETS.minRatio}, p99 × ≤ ${TARGETS.maxP99Ratio}, zero non-2xx. Ratio = service req/s ÷ baseline req/s, measured side by side.</text>`,
  );
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
