import { round } from '../shared/round.js';

/**
 * The soak's verdict (docs/performance.md, "Soak"): a pure function of the minutes the soak
 * observed. Nothing here reads a clock, a file or the database, so the rules are unit-tested
 * (test/bench/soak-verdict.spec.ts) with made-up minutes.
 */

/** One endpoint during one minute. */
export interface EndpointMinute {
  key: string;
  label: string;
  /** Requests answered (any status) in the minute. */
  responses: number;
  /** p99 of the minute's answers, in ms; null with no answer. */
  p99Ms: number | null;
  /** The minute's median answer, in ms; null with no answer. */
  p50Ms: number | null;
  /** Answers with a status the scenario does not expect (any non-2xx). */
  unexpected: number;
  /** Requests that got no answer: refused connection, reset, timeout. */
  errors: number;
  /** Requests the sender could not start on time because too many were in flight (the service fell behind). */
  skipped: number;
}

/**
 * A table at one moment: its size and PostgreSQL's counters (pg_stat_user_tables, summed over
 * a partitioned table's partitions). inserted/updated/deleted are cumulative.
 */
export interface TableReading {
  table: string;
  bytes: number;
  liveRows: number;
  deadRows: number;
  inserted: number;
  updated: number;
  deleted: number;
}

export interface ProcessMinute {
  name: string;
  /** Mean resident set size over the minute's samples. */
  rssMb: number;
}

export interface MinuteSample {
  /** 1 for the first minute of traffic. */
  minute: number;
  endpoints: EndpointMinute[];
  processes: ProcessMinute[];
  /** The tables at the end of the minute. */
  tables: TableReading[];
  /** Webhook deliveries the receiver accepted in the minute, and those whose signature did not verify. */
  webhooks: { received: number; badSignatures: number };
}

/** Rows a table may gain per request of each scenario (by key). */
export interface TableAllowance {
  table: string;
  rowsPerRequest: Readonly<Record<string, number>>;
}

export interface SoakRun {
  minutes: readonly MinuteSample[];
  /** The tables just before the traffic started. */
  tablesAtStart: readonly TableReading[];
  allowances: readonly TableAllowance[];
  /** Events the traffic emitted (endings chosen), and how many of them the receiver got with a valid signature. */
  webhooks: { emitted: number; delivered: number };
  /** The database's checkpoint_timeout in whole minutes: the span drift is judged over. */
  checkpointMinutes: number;
}

export interface VerdictRules {
  /** The first minute judged: the first two warm up (JIT, caches, pools, the first full-page writes). */
  baselineMinute: number;
  /** Drift allowed over the baseline, as a fraction. */
  drift: number;
  /** The highest minutes of each span left out of its figure: stalls that one minute's p99 catches (a GC, a neighbour's burst). */
  dropHighest: number;
  /** A latency must also exceed the baseline by this much to count as over (timer and scheduling noise of a shared 2-core machine). */
  latencyFloorMs: number;
  /**
   * An endpoint's p99 is judged only when each minute has at least this many answers, so that
   * it is the 10th slowest or beyond; with fewer, a minute's p99 is its slowest request or two,
   * and the endpoint's p50 is judged instead, from `minResponsesForP50` answers a minute.
   */
  minResponsesForP99: number;
  minResponsesForP50: number;
  /** Rows a table may grow beyond its allowance: the larger of these. */
  rowSlack: { rows: number; fraction: number };
  /** A table the traffic adds no row to may grow this much in bytes past the baseline minute, besides `drift`. */
  bytesSlack: number;
  /** Requests the sender could not start on time, as a fraction of an endpoint's requests, before it fails. */
  skippedFraction: number;
}

export const DEFAULT_RULES: VerdictRules = {
  baselineMinute: 3,
  drift: 0.15,
  dropHighest: 2,
  latencyFloorMs: 2,
  minResponsesForP99: 1000,
  minResponsesForP50: 100,
  rowSlack: { rows: 100, fraction: 0.01 },
  bytesSlack: 1024 * 1024,
  skippedFraction: 0.01,
};

export interface Verdict {
  passed: boolean;
  failures: string[];
  /** What was not judged, and why. */
  notes: string[];
}

export function soakVerdict(run: SoakRun, rules: VerdictRules = DEFAULT_RULES): Verdict {
  const failures: string[] = [];
  const notes: string[] = [];
  failures.push(...errorFailures(run.minutes, rules));
  failures.push(...driftFailures(run, rules, notes));
  failures.push(...tableFailures(run, rules, notes));
  failures.push(...webhookFailures(run));
  return { passed: failures.length === 0, failures, notes };
}

/** Any unexpected status, any request without an answer, a sender that fell behind. */
function errorFailures(minutes: readonly MinuteSample[], rules: VerdictRules): string[] {
  const failures: string[] = [];
  for (const sample of minutes) {
    for (const e of sample.endpoints) {
      if (e.unexpected > 0) failures.push(`minute ${sample.minute}: ${e.label}: ${e.unexpected} answers with an unexpected status`);
      if (e.errors > 0) failures.push(`minute ${sample.minute}: ${e.label}: ${e.errors} requests without an answer`);
    }
  }
  // From the baseline minute on: a cold service may fall behind while it warms up.
  const totals = new Map<string, { label: string; sent: number; skipped: number }>();
  for (const e of minutes.filter((m) => m.minute >= rules.baselineMinute).flatMap((m) => m.endpoints)) {
    const total = totals.get(e.key) ?? { label: e.label, sent: 0, skipped: 0 };
    total.sent += e.responses + e.errors;
    total.skipped += e.skipped;
    totals.set(e.key, total);
  }
  for (const { label, sent, skipped } of totals.values()) {
    if (skipped > rules.skippedFraction * (sent + skipped)) {
      failures.push(`${label}: ${skipped} requests not sent on time from minute ${rules.baselineMinute} (the service fell behind the rate)`);
    }
  }
  return failures;
}

/** A figure per minute from the baseline minute on, undefined where not judged. */
interface Series {
  what: string;
  /** Absolute margin, besides the fraction, that a span must exceed the baseline by. */
  floor: number;
  unit: string;
  values: { minute: number; value: number | undefined }[];
}

/**
 * RSS of each process and p99 of each endpoint over spans of one checkpoint period
 * (`checkpoint_timeout`, 5 minutes on the bench's database). A span's figure is the mean of
 * its minutes without the `dropHighest` highest. The baseline is the span that starts at the
 * baseline minute (minutes 3–7); every later span of as many consecutive minutes (8–12,
 * 9–13, …) fails when its figure exceeds the baseline's by more than `drift` (and
 * `latencyFloorMs` for a p99).
 *
 * Why spans of a checkpoint period: PostgreSQL spreads a checkpoint's writes over most of the
 * period, and every page's first change after it writes the whole page to the WAL, so the p99
 * of every endpoint rises and falls with the checkpoint cycle (the soak of 10:16 on
 * 2026-11-26: 28 ms over minutes 3–5, 39–50 ms over 6–10, 15–19 ms over 11–12). A span of one
 * period holds one whole cycle whatever its phase, so two spans compare like with like; a
 * baseline of the first quiet minutes does not. Why without the highest minutes: one
 * minute's p99 is its slowest 0.6 s and moves with any second of bad luck; two such minutes
 * in a span pass. A figure that climbs (a leak, bloat, a scan that grows with a table) is
 * higher in most minutes of each later span, and fails.
 */
function driftFailures(run: SoakRun, rules: VerdictRules, notes: string[]): string[] {
  const span = Math.max(rules.dropHighest + 1, Math.round(run.checkpointMinutes));
  const first = rules.baselineMinute;
  const judged = run.minutes.filter((m) => m.minute >= first);
  const baseSpan = `minutes ${first}–${first + span - 1}`;
  if (judged.length < 2 * span) {
    notes.push(
      `RSS and p99 drift are judged over spans of ${span} minutes (one checkpoint period): ${baseSpan} against every later span (runs of ${first + 2 * span - 1} minutes or more)`,
    );
    return [];
  }
  const series: Series[] = [];
  for (const { name } of judged[0].processes) {
    series.push({
      what: `RSS of ${name}`,
      unit: 'MB',
      floor: 0,
      values: judged.map((m) => ({ minute: m.minute, value: m.processes.find((p) => p.name === name)?.rssMb })),
    });
  }
  for (const { key, label } of judged[0].endpoints) {
    const endpoint = (m: MinuteSample) => m.endpoints.find((x) => x.key === key);
    const answered = (m: MinuteSample, least: number) => (endpoint(m)?.responses ?? 0) >= least;
    const baseMinutes = judged.slice(0, span);
    const [what, least, figure] = baseMinutes.every((m) => answered(m, rules.minResponsesForP99))
      ? (['p99', rules.minResponsesForP99, (e: EndpointMinute) => e.p99Ms] as const)
      : (['p50', rules.minResponsesForP50, (e: EndpointMinute) => e.p50Ms] as const);
    if (!baseMinutes.every((m) => answered(m, least))) {
      notes.push(`${label}: fewer than ${rules.minResponsesForP50} answers in a minute of ${baseSpan}: its latency is not judged`);
      continue;
    }
    series.push({
      what: `${what} of ${label}`,
      unit: 'ms',
      floor: rules.latencyFloorMs,
      values: judged.map((m) => ({ minute: m.minute, value: answered(m, least) ? (figure(endpoint(m)!) ?? undefined) : undefined })),
    });
  }
  const kept = span - rules.dropHighest;
  const failures: string[] = [];
  for (const s of series) {
    const baseline = spanFigure(s.values.slice(0, span), kept);
    if (baseline === undefined) {
      notes.push(`${s.what}: not judged, a minute of ${baseSpan} lacks it`);
      continue;
    }
    const limit = Math.max(baseline * (1 + rules.drift), baseline + s.floor);
    for (let start = span; start + span <= s.values.length; start++) {
      const values = s.values.slice(start, start + span);
      const figure = spanFigure(values, kept);
      if (figure !== undefined && figure > limit) {
        failures.push(
          `${s.what} drifted: ${round(figure, 1)} ${s.unit} in minutes ${values[0].minute}–${values.at(-1)!.minute}, over ${round(limit, 1)} ${s.unit} ` +
            `(${baseSpan}: ${round(baseline, 1)} ${s.unit}; each the mean of the lowest ${kept})`,
        );
        break;
      }
    }
  }
  return failures;
}

/** The mean of a span's `kept` lowest values; undefined when any minute of it was not judged. */
function spanFigure(values: readonly { value: number | undefined }[], kept: number): number | undefined {
  if (values.some((v) => v.value === undefined)) return undefined;
  const lowest = values
    .map((v) => v.value!)
    .sort((a, b) => a - b)
    .slice(0, kept);
  return lowest.reduce((n, v) => n + v, 0) / lowest.length;
}

/**
 * Tables: rows added (inserted − deleted, from the start of the traffic) within what the
 * requests explain, dead rows within what autovacuum leaves (its default
 * threshold, 50 + 20 % of the live rows, plus the last two minutes' updates and deletes it
 * has not reached yet), and a table the traffic adds no row to no bigger than at the
 * baseline minute by more than `drift` and `bytesSlack` (bloat from updates in place).
 */
function tableFailures(run: SoakRun, rules: VerdictRules, notes: string[]): string[] {
  const failures: string[] = [];
  const last = run.minutes.at(-1);
  if (!last) return ['no minute observed'];
  const requests = new Map<string, number>();
  for (const e of run.minutes.flatMap((m) => m.endpoints)) requests.set(e.key, (requests.get(e.key) ?? 0) + e.responses);
  for (const allowance of run.allowances) {
    const start = run.tablesAtStart.find((t) => t.table === allowance.table);
    const end = last.tables.find((t) => t.table === allowance.table);
    if (!start || !end) {
      notes.push(`${allowance.table}: not observed`);
      continue;
    }
    const explained = Object.entries(allowance.rowsPerRequest).reduce((n, [key, perRequest]) => n + perRequest * (requests.get(key) ?? 0), 0);
    const slack = Math.max(rules.rowSlack.rows, rules.rowSlack.fraction * start.liveRows);
    const added = end.inserted - end.deleted - (start.inserted - start.deleted);
    if (added > explained + slack) {
      failures.push(`${allowance.table}: ${added} rows added, the traffic explains at most ${Math.round(explained)} (+${Math.round(slack)} slack)`);
    }
    for (let i = 0; i < run.minutes.length; i++) {
      const sample = run.minutes[i];
      if (sample.minute < rules.baselineMinute) continue;
      const now = sample.tables.find((t) => t.table === allowance.table);
      const twoBefore = i >= 2 ? run.minutes[i - 2].tables.find((t) => t.table === allowance.table) : start;
      if (!now || !twoBefore) continue;
      const churn = now.updated + now.deleted - (twoBefore.updated + twoBefore.deleted);
      const allowedDead = 50 + 0.2 * now.liveRows + churn;
      if (now.deadRows > allowedDead) {
        failures.push(`${allowance.table}: ${now.deadRows} dead rows at minute ${sample.minute}, autovacuum should keep them under ${Math.round(allowedDead)}`);
        break;
      }
    }
    const addsRows = Object.values(allowance.rowsPerRequest).some((n) => n > 0);
    const baseline = run.minutes.find((m) => m.minute === rules.baselineMinute)?.tables.find((t) => t.table === allowance.table);
    if (!addsRows && baseline && last.minute > rules.baselineMinute) {
      const limit = baseline.bytes * (1 + rules.drift) + rules.bytesSlack;
      if (end.bytes > limit) {
        failures.push(
          `${allowance.table}: ${mb(end.bytes)} MB at the end against ${mb(baseline.bytes)} MB at minute ${rules.baselineMinute}, and no request adds a row`,
        );
      }
    }
  }
  return failures;
}

function webhookFailures(run: SoakRun): string[] {
  const failures: string[] = [];
  const bad = run.minutes.reduce((n, m) => n + m.webhooks.badSignatures, 0);
  if (bad > 0) failures.push(`webhooks: ${bad} deliveries whose signature did not verify`);
  const { emitted, delivered } = run.webhooks;
  if (delivered < emitted) failures.push(`webhooks: ${delivered} of the ${emitted} events emitted reached the receiver`);
  return failures;
}

const mb = (bytes: number) => round(bytes / 2 ** 20, 1);
