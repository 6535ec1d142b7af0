// The ×N over ×1 table of `npm run bench -- --scale=N` (docs/performance.md). Run alone it
// compares any two result files: node dist/bench/load/scale-report.js BASE.json SCALED.json
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { EndingStatementCost } from './ending-cost.js';
import { round } from '../shared/round.js';

/** The parts of a result file (bench/load/report.ts) the table reads. */
export interface ResultFile {
  command: string;
  data: { rows: Record<string, number> };
  endpoints: {
    key: string;
    label: string;
    status: string;
    service?: { requestsPerSecond: number; p99Ms: number; postgresCpuMsPerRequest?: number; statementsPerRequest?: number; rssMaxMb?: number };
    singleClient?: { service: { p99Ms: number } };
  }[];
  chapter_unlock_job?: { readers: number; due: number; runMs: number };
  webhook_backlog?: { backlog: number; claimMs: { median: number; p99: number }; gaugesMs?: { median: number; p99: number } };
  engagement_ending_cost?: EndingStatementCost;
  limit_probes?: { key: string; stack: string; figures: { cpuMsPerRequest?: number } }[];
}

const ENDING_FIGURES: Record<keyof EndingStatementCost, string> = {
  countRows: 'count rows read',
  endings: 'endings in the period',
  answerRows: 'endings past the minimum (answer rows)',
  servedCpuMs: 'PostgreSQL CPU ms as served',
  countedCpuMs: 'PostgreSQL CPU ms without sending its answer',
  answerCpuUsPerRow: 'PostgreSQL CPU us per answer row',
};

export interface ScaleRow {
  figure: string;
  base: number | null;
  scaled: number | null;
  /** scaled ÷ base. */
  ratio: number | null;
}

/** Each figure of the two runs: what a partner's growth does to every endpoint and job. */
export function scaleRows(base: ResultFile, scaled: ResultFile): ScaleRow[] {
  const rows: ScaleRow[] = [];
  const add = (figure: string, a: number | null | undefined, b: number | null | undefined) =>
    rows.push({ figure, base: a ?? null, scaled: b ?? null, ratio: a && b !== undefined && b !== null ? round(b / a, 2) : null });
  for (const [table, count] of Object.entries(base.data.rows)) add(`rows: ${table}`, count, scaled.data.rows[table]);
  for (const endpoint of base.endpoints) {
    const other = scaled.endpoints.find((e) => e.key === endpoint.key);
    if (endpoint.status !== 'measured' || other?.status !== 'measured') continue;
    add(`${endpoint.label}: req/s`, endpoint.service?.requestsPerSecond, other.service?.requestsPerSecond);
    add(`${endpoint.label}: p99 ms under load`, endpoint.service?.p99Ms, other.service?.p99Ms);
    add(`${endpoint.label}: PostgreSQL CPU ms per request`, endpoint.service?.postgresCpuMsPerRequest, other.service?.postgresCpuMsPerRequest);
    add(`${endpoint.label}: statements per request`, endpoint.service?.statementsPerRequest, other.service?.statementsPerRequest);
    if (endpoint.singleClient) add(`${endpoint.label}: p99 ms one at a time`, endpoint.singleClient.service.p99Ms, other.singleClient?.service.p99Ms);
  }
  const perDue = (job: ResultFile['chapter_unlock_job']) => (job ? round(job.runMs / job.due, 3) : null);
  add('chapter.unlocked job: ms per due reader', perDue(base.chapter_unlock_job), perDue(scaled.chapter_unlock_job));
  add('chapter.unlocked job: readers on the schedule', base.chapter_unlock_job?.readers, scaled.chapter_unlock_job?.readers);
  add('webhook claim behind the backlog: ms median', base.webhook_backlog?.claimMs.median, scaled.webhook_backlog?.claimMs.median);
  add('webhook backlog gauges behind the backlog: ms median', base.webhook_backlog?.gaugesMs?.median, scaled.webhook_backlog?.gaugesMs?.median);
  add('webhook backlog: due deliveries', base.webhook_backlog?.backlog, scaled.webhook_backlog?.backlog);
  const ending = (figure: keyof EndingStatementCost) =>
    add(`engagement ending statement: ${ENDING_FIGURES[figure]}`, base.engagement_ending_cost?.[figure], scaled.engagement_ending_cost?.[figure]);
  for (const figure of Object.keys(ENDING_FIGURES) as (keyof EndingStatementCost)[]) ending(figure);
  add(`${MACHINE_PROBE.label}: CPU ms per request (the machine's speed)`, machineProbeCpu(base), machineProbeCpu(scaled));
  return rows;
}

/**
 * The probe whose CPU per request measures the machine's speed in each half: the bare
 * json-page server does the same work at every size, so its CPU per request moves only with
 * the machine (busy neighbours, a slower core), which moves every CPU figure of that half.
 */
const MACHINE_PROBE = { key: 'json-page', label: 'bare json-page probe' };

function machineProbeCpu(file: ResultFile): number | undefined {
  return file.limit_probes?.find((p) => p.key === MACHINE_PROBE.key && p.stack === 'bare')?.figures.cpuMsPerRequest;
}

/** The engagement report's PostgreSQL CPU per report under load, when it was measured. */
function engagementCpu(file: ResultFile): number | undefined {
  return file.endpoints.find((e) => e.key === 'engagement' && e.status === 'measured')?.service?.postgresCpuMsPerRequest;
}

/** Issue 41's bound on the engagement report: its PostgreSQL CPU per report at ×N over ×1. */
export const ENGAGEMENT_CPU_RATIO_TARGET = 1.3;

/**
 * The engagement report's verdict: its PostgreSQL CPU per report under load at ×N over ×1,
 * and the same without the part that sends the ending statement's answer. The answer grows
 * with the endings past the cohort minimum, which the catalog bounds (every ending past it
 * at ×10 in the bench's data), the rest with the counts read: the second ratio says which.
 */
export function engagementScaleLine(base: ResultFile, scaled: ResultFile): string | undefined {
  const [a, b] = [engagementCpu(base), engagementCpu(scaled)];
  if (!a || !b) return undefined;
  const ratio = round(b / a, 2);
  const verdict = ratio <= ENGAGEMENT_CPU_RATIO_TARGET ? 'target met    ' : 'target not met';
  const line = `${verdict} engagement report: PostgreSQL CPU per report ${a} → ${b} ms, ×${ratio.toFixed(2)} (≤ ${ENGAGEMENT_CPU_RATIO_TARGET})`;
  const answer = (cost: EndingStatementCost | undefined) =>
    cost?.servedCpuMs != null && cost.countedCpuMs != null ? Math.max(0, cost.servedCpuMs - cost.countedCpuMs) : undefined;
  const [answerA, answerB] = [answer(base.engagement_ending_cost), answer(scaled.engagement_ending_cost)];
  if (answerA === undefined || answerB === undefined || a - answerA <= 0) return line;
  const rows = `${base.engagement_ending_cost!.answerRows.toLocaleString('en')} → ${scaled.engagement_ending_cost!.answerRows.toLocaleString('en')}`;
  return (
    `${line}; sending the ending answer (${rows} rows past the minimum) ${round(answerA, 3)} → ${round(answerB, 3)} ms, ` +
    `the rest ${round(a - answerA, 3)} → ${round(b - answerB, 3)} ms, ×${round((b - answerB) / (a - answerA), 2).toFixed(2)}`
  );
}

/**
 * The engagement ratio divided by the machine probe's ×N over ×1: what the ratio would be had
 * the machine run both halves at one speed. A reading beside the verdict, not one: the
 * probe's CPU per request (kept to 0.1 µs, bench/shared/load.ts) is one small process's.
 */
export function engagementMachineLine(base: ResultFile, scaled: ResultFile): string | undefined {
  const [a, b, probeA, probeB] = [engagementCpu(base), engagementCpu(scaled), machineProbeCpu(base), machineProbeCpu(scaled)];
  if (!a || !b || !probeA || !probeB) return undefined;
  const speed = probeB / probeA;
  return (
    `the machine: the ${MACHINE_PROBE.label}'s CPU per request ${probeA} → ${probeB} ms (×${round(speed, 2).toFixed(2)}); ` +
    `the engagement ratio divided by it ×${round(b / a / speed, 2).toFixed(2)}`
  );
}

export function scaleTable(base: ResultFile, scaled: ResultFile, baseFile: string, scaledFile: string): string {
  const show = (n: number | null) => (n === null ? '–' : n.toLocaleString('en'));
  const engagement = [engagementScaleLine(base, scaled), engagementMachineLine(base, scaled)].filter((line) => line !== undefined);
  return [
    `# ${scaled.command}`,
    '',
    `×1: ${basename(baseFile)} · ×N: ${basename(scaledFile)}`,
    '',
    '| figure | ×1 | ×N | ×N ÷ ×1 |',
    '| --- | ---: | ---: | ---: |',
    ...scaleRows(base, scaled).map((row) => `| ${row.figure} | ${show(row.base)} | ${show(row.scaled)} | ${row.ratio === null ? '–' : row.ratio.toFixed(2)} |`),
    '',
    ...engagement.flatMap((line) => [line, '']),
  ].join('\n');
}

/** Writes the table beside the scaled run's result file (same name, `.md`) and prints it. */
export function writeScaleReport(root: string, baseFile: string, scaledFile: string): { markdown: string } {
  const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as ResultFile;
  const table = scaleTable(read(baseFile), read(scaledFile), baseFile, scaledFile);
  const markdown = join(root, 'bench/results', basename(scaledFile).replace(/\.json$/, '.md'));
  writeFileSync(markdown, table);
  console.log(table);
  return { markdown };
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const [baseFile, scaledFile] = process.argv.slice(2);
  if (!baseFile || !scaledFile) {
    console.error('usage: node dist/bench/load/scale-report.js BASE.json SCALED.json');
    process.exit(2);
  }
  writeScaleReport(resolve(import.meta.dirname, '../../..'), baseFile, scaledFile);
}
