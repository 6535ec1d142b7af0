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
}

export interface VerdictRules {
  /**
   * The minute every later one is compared with: the first two warm up (JIT, caches, pools,
   * the first full-page writes). The drift baseline is the median of it and the
   * `baselineSpan - 1` minutes after it, so that one lucky or unlucky minute does not set it.
   */
  baselineMinute: number;
  baselineSpan: number;
  /** Drift allowed over the baseline, as a fraction. */
  drift: number;
  /** A p99 must also exceed the baseline by this much to count as over (timer and scheduling noise of a shared 2-core machine). */
  p99FloorMs: number;
  /** An endpoint's p99 is judged only in minutes with at least this many answers (fewer: the p99 is one request). */
  minResponsesForP99: number;
  /** Consecutive minutes looked at together, and how many of them must be over for a drift. */
  window: number;
  overInWindow: number;
  /** Rows a table may grow beyond its allowance: the larger of these. */
  rowSlack: { rows: number; fraction: number };
  /** A table the traffic adds no row to may grow this much in bytes past the baseline minute, besides `drift`. */
  bytesSlack: number;
  /** Requests the sender could not start on time, as a fraction of an endpoint's requests, before it fails. */
  skippedFraction: number;
}

export const DEFAULT_RULES: VerdictRules = {
  baselineMinute: 3,
  baselineSpan: 3,
  drift: 0.15,
  p99FloorMs: 2,
  minResponsesForP99: 100,
  window: 5,
  overInWindow: 3,
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
  failures.push(...driftFailures(run.minutes, rules, notes));
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

/** A figure's series after the baseline: value per minute, undefined where not judged. */
interface Series {
  what: string;
  baseline: number;
  /** Absolute margin, besides the fraction, that a value must exceed the baseline by. */
  floor: number;
  unit: string;
  values: { minute: number; value: number | undefined }[];
}

/**
 * RSS of each process and p99 of each endpoint against their baseline: the median of minutes
 * 3 to 5. A later minute is over when its figure exceeds the baseline by more than `drift`
 * (and `p99FloorMs` for a p99); a drift is `overInWindow` minutes over within `window`
 * consecutive minutes, i.e. the window's median over the line. One minute's p99 moves with
 * any second of bad luck (a checkpoint and its full-page writes, a GC, other work on the
 * machine): one or two stalled minutes in five pass; a figure that really climbs stays over
 * and fails within a few minutes of crossing the line.
 */
function driftFailures(minutes: readonly MinuteSample[], rules: VerdictRules, notes: string[]): string[] {
  const first = rules.baselineMinute;
  const last = first + rules.baselineSpan - 1;
  const baseMinutes = minutes.filter((m) => m.minute >= first && m.minute <= last);
  const later = minutes.filter((m) => m.minute > last);
  const span = `minutes ${first}–${last}`;
  if (baseMinutes.length < rules.baselineSpan || later.length < rules.overInWindow) {
    notes.push(
      `RSS and p99 drift are judged on ${span} and at least ${rules.overInWindow} minutes after them (runs of ${last + rules.overInWindow} minutes or more)`,
    );
    return [];
  }
  const series: Series[] = [];
  const add = (what: string, unit: string, floor: number, value: (m: MinuteSample) => number | undefined, tooFew: string) => {
    const base = baseMinutes.map(value);
    if (base.some((v) => v === undefined)) return notes.push(tooFew);
    series.push({ what, baseline: median(base as number[]), floor, unit, values: later.map((m) => ({ minute: m.minute, value: value(m) })) });
  };
  for (const { name } of baseMinutes[0].processes) {
    add(`RSS of ${name}`, 'MB', 0, (m) => m.processes.find((p) => p.name === name)?.rssMb, `RSS of ${name}: not sampled in ${span}`);
  }
  for (const { key, label } of baseMinutes[0].endpoints) {
    const judged = (m: MinuteSample) => {
      const e = m.endpoints.find((x) => x.key === key);
      return e && e.p99Ms !== null && e.responses >= rules.minResponsesForP99 ? e.p99Ms : undefined;
    };
    add(`p99 of ${label}`, 'ms', rules.p99FloorMs, judged, `${label}: fewer than ${rules.minResponsesForP99} answers a minute in ${span}: p99 not judged`);
  }
  const failures: string[] = [];
  for (const s of series) {
    const limit = Math.max(s.baseline * (1 + rules.drift), s.baseline + s.floor);
    const over = s.values.map((v) => v.value !== undefined && v.value > limit);
    for (let end = 0; end < over.length; end++) {
      const window = over.slice(Math.max(0, end - rules.window + 1), end + 1);
      if (window.filter(Boolean).length >= rules.overInWindow) {
        const overMinutes = s.values.filter((_, i) => over[i] && i <= end && i > end - rules.window).map((v) => `${v.minute}: ${round(v.value!)}`);
        failures.push(
          `${s.what} drifted: over ${round(limit)} ${s.unit} (median of ${span}: ${round(s.baseline)} ${s.unit}) in minutes ${overMinutes.join(', ')}`,
        );
        break;
      }
    }
  }
  return failures;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
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

const round = (n: number) => Math.round(n * 10) / 10;
const mb = (bytes: number) => round(bytes / 2 ** 20);
