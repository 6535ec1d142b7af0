import pg from 'pg';
import type { DatabaseMeter } from '../shared/database-meter.js';
import type { SeededData } from '../shared/seed.js';
import { round } from '../shared/round.js';
import * as sql from '../baseline/sql.js';

/**
 * What the engagement report's ending statement costs PostgreSQL, in two parts: reading and
 * aggregating the period's counts (the same statement inside `SELECT count(*)`, so PostgreSQL
 * does all of it but send its rows), and sending its answer (the difference). The first grows
 * with the rows it reads, the second with the endings past the cohort minimum: the split says
 * which of the two a ×N sitting's growth is.
 */
export interface EndingStatementCost {
  /** Month and day count rows the statement reads for the period. */
  countRows: number;
  /** Endings with a count in the period, before the cohort minimum. */
  endings: number;
  /** Endings past the minimum: the answer's rows. */
  answerRows: number;
  /** PostgreSQL CPU per execution, as the service sends it. */
  servedCpuMs: number | null;
  /** The same, inside `SELECT count(*)`: everything but sending the answer. */
  countedCpuMs: number | null;
  /** (served − counted) ÷ answer rows. */
  answerCpuUsPerRow: number | null;
}

const EXECUTIONS = 200;
const ROUNDS = 5;
const WARMUP = 20;
/** Unsettled month rows below which the endpoints' deltas count as folded. */
const FOLDED_PENDING = 1_000;

/** Measures the ending statement on the seeded partner's period, after the service's folding has run (run it after the endpoints). */
export async function measureEndingStatement(url: string, data: Pick<SeededData, 'partnerId' | 'period'>, meter: DatabaseMeter): Promise<EndingStatementCost> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    await foldedCounts(db);
    const from = new Date(`${data.period.start}T00:00:00Z`);
    const until = new Date(new Date(`${data.period.end}T00:00:00Z`).getTime() + 86_400_000);
    const counts = sql.engagementCountParameters({ partnerId: data.partnerId, environment: 'live' }, { ...data.period, from, until });
    const { served, counted } = endingStatementQueries(counts);
    const cpuPerExecution = async (query: pg.QueryConfig) => {
      for (let i = 0; i < WARMUP; i++) await db.query(query);
      const start = await meter.read();
      for (let i = 0; i < EXECUTIONS; i++) await db.query(query);
      const used = meter.between(start, await meter.read()).cpuMs;
      return used === null ? null : round(used / EXECUTIONS, 3);
    };
    // Alternated, and the median of each kept: the background jobs' CPU lands in some windows.
    const servedRounds: (number | null)[] = [];
    const countedRounds: (number | null)[] = [];
    for (let turn = 0; turn < ROUNDS; turn++) {
      servedRounds.push(await cpuPerExecution(served));
      countedRounds.push(await cpuPerExecution(counted));
    }
    const servedCpuMs = median(servedRounds);
    const countedCpuMs = median(countedRounds);
    const answerRows = (await db.query(served)).rowCount ?? 0;
    const endings = (await db.query({ ...served, values: [...counts, Number.MIN_SAFE_INTEGER] })).rowCount ?? 0;
    const { rows } = await db.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${served.text}`, served.values);
    const countRows = appendedRows((rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0].Plan);
    const answerCpuUsPerRow =
      servedCpuMs !== null && countedCpuMs !== null && answerRows > 0 ? round(((servedCpuMs - countedCpuMs) * 1000) / answerRows, 2) : null;
    return { countRows, endings, answerRows, servedCpuMs, countedCpuMs, answerCpuUsPerRow };
  } finally {
    await db.end();
  }
}

/**
 * The ending statement as the service sends it, and inside `SELECT count(*)`. Both unnamed,
 * as the service's (Db.query): PostgreSQL plans an unnamed statement for its values, every
 * time. A named one gets the generic plan after five executions, and the generic plan guesses
 * one count row: it sorts the rows to group them where the service's plan hashes them. Over
 * 6 000 count rows that cost 1.7 times the CPU (embedded PostgreSQL 18, 2026-11-29), and the
 * split measured a plan the service never runs.
 */
export function endingStatementQueries(counts: unknown[]): { served: pg.QueryConfig; counted: pg.QueryConfig } {
  const served = { text: sql.ENGAGEMENT_STATEMENTS.endingCounts, values: [...counts, sql.ENGAGEMENT_MINIMUM_COHORT] };
  return { served, counted: { ...served, text: `SELECT count(*)::int AS rows FROM (${served.text}) AS answer` } };
}

/**
 * Waits (two minutes at most) until the service's folding job (every minute) has folded the
 * month deltas the endpoints wrote, as it keeps them in service: a few unsettled rows per key
 * of the last minute's writes.
 */
async function foldedCounts(db: pg.Client): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const { rows } = await db.query<{ pending: number }>('SELECT count(*)::int AS pending FROM engagement_month_counts WHERE NOT settled');
    if (rows[0].pending < FOLDED_PENDING || Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
}

export function endingCostLine(cost: EndingStatementCost): string {
  const ms = (figure: number | null) => (figure === null ? '–' : `${figure} ms`);
  return (
    `bench: engagement ending statement: reads ${cost.countRows} count rows, ${cost.endings} endings, ${cost.answerRows} past the minimum; ` +
    `PostgreSQL CPU ${ms(cost.servedCpuMs)} as served, ${ms(cost.countedCpuMs)} without sending its answer ` +
    `(the answer: ${cost.answerCpuUsPerRow === null ? '–' : `${cost.answerCpuUsPerRow} us`} per row)`
  );
}

interface PlanNode {
  'Node Type': string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  Plans?: PlanNode[];
}

/** The rows the plan's Append (the month rows UNION ALL the day rows) produced. */
export function appendedRows(node: PlanNode): number {
  if (node['Node Type'] === 'Append') return (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1);
  return (node.Plans ?? []).reduce((sum, child) => sum + appendedRows(child), 0);
}

function median(figures: (number | null)[]): number | null {
  if (figures.some((figure) => figure === null)) return null;
  const sorted = (figures as number[]).toSorted((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}
