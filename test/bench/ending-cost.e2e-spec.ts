import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { endingCostLine, endingStatementQueries, measureEndingStatement, type EndingStatementCost } from '../../bench/load/ending-cost.js';
import { ENGAGEMENT_STATEMENTS } from '../../bench/baseline/sql.js';
import { scaleRows } from '../../bench/load/scale-report.js';
import { DatabaseMeter } from '../../bench/shared/database-meter.js';
import { createTestDatabase } from '../support/test-database.js';

/**
 * The bench's split of the engagement report's ending statement (docs/performance.md): the
 * rows it reads, the endings it counts, those it answers, on a migrated database with the
 * bench's period (the last 60 days: a partial month read by its days, whole months by their
 * sums, the rest of the current month taken away).
 */
const PERIOD = { start: '2026-09-29', end: '2026-11-28' };
const partnerId = randomUUID();
let url: string;

beforeAll(async () => {
  url = await createTestDatabase();
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const month = `INSERT INTO engagement_month_counts (partner_id, environment, measure, month, novel_id, choice_id, count) VALUES ($1, $2, 'endings', $3, $4, $5, $6)`;
    const day = `INSERT INTO engagement_day_counts (partner_id, environment, measure, day, novel_id, choice_id, count) VALUES ($1, $2, 'endings', $3, $4, $5, $6)`;
    for (const [statement, environment, when, novel, choice, count] of [
      [month, 'live', '2026-10-01', 'heir', 'stay', 15],
      [month, 'live', '2026-11-01', 'heir', 'stay', 10],
      [month, 'live', '2026-10-01', 'heir', 'leave', 30],
      [month, 'live', '2026-11-01', 'pact', 'keep', 5],
      // Read by its day (Sep 29–30 are in the period, the rest of September is not).
      [day, 'live', '2026-09-30', 'pact', 'keep', 1],
      // Taken away from November's sum (Nov 29–30 are after the period). Its day-count
      // trigger adds it to November's sum too, as every day count: one more month row.
      [day, 'live', '2026-11-29', 'heir', 'stay', 2],
      // Outside the period, or another environment's: never read.
      [month, 'live', '2026-12-01', 'heir', 'stay', 40],
      [month, 'sandbox', '2026-10-01', 'heir', 'stay', 40],
    ] as const) {
      await db.query(statement, [partnerId, environment, when, novel, choice, count]);
    }
  } finally {
    await db.end();
  }
});

test('counts the rows read, the endings and the answer rows of the seeded partner’s period', async () => {
  // No postmaster to read CPU from (a database may be on another host): the CPU figures are unknown, not zero.
  const meter = await DatabaseMeter.open(url, false, undefined);
  const cost = await measureEndingStatement(url, { partnerId, period: PERIOD }, meter);
  // heir/stay 15 + 10 + 2 (the trigger) − 2 = 25, heir/leave 30, pact/keep 5 + 1 = 6: two past the minimum of 20.
  expect(cost).toEqual({ countRows: 7, endings: 3, answerRows: 2, servedCpuMs: null, countedCpuMs: null, answerCpuUsPerRow: null });
  expect(endingCostLine(cost)).toBe(
    'bench: engagement ending statement: reads 7 count rows, 3 endings, 2 past the minimum; ' +
      'PostgreSQL CPU – as served, – without sending its answer (the answer: – per row)',
  );
});

test('measures the statement unnamed, as the service sends it: planned for its values, not generically', () => {
  const { served, counted } = endingStatementQueries([partnerId]);
  expect(served).toEqual({ text: ENGAGEMENT_STATEMENTS.endingCounts, values: [partnerId, 20] });
  expect(counted.name).toBeUndefined();
  expect(counted.text).toContain(ENGAGEMENT_STATEMENTS.endingCounts);
});

test('the ×N table gives each figure of the split at both sizes and their ratio', () => {
  const run = (cost: EndingStatementCost) => ({ command: 'npm run bench -- --scale=10', data: { rows: {} }, endpoints: [], engagement_ending_cost: cost });
  const base = { countRows: 5054, endings: 3000, answerRows: 368, servedCpuMs: 3.6, countedCpuMs: 3.2, answerCpuUsPerRow: 1.09 };
  const scaled = { countRows: 6000, endings: 3000, answerRows: 3000, servedCpuMs: 7.2, countedCpuMs: 4, answerCpuUsPerRow: 1.07 };
  const rows = scaleRows(run(base), run(scaled)).filter((row) => row.figure.startsWith('engagement ending statement'));
  expect(rows).toEqual([
    { figure: 'engagement ending statement: count rows read', base: 5054, scaled: 6000, ratio: 1.19 },
    { figure: 'engagement ending statement: endings in the period', base: 3000, scaled: 3000, ratio: 1 },
    { figure: 'engagement ending statement: endings past the minimum (answer rows)', base: 368, scaled: 3000, ratio: 8.15 },
    { figure: 'engagement ending statement: PostgreSQL CPU ms as served', base: 3.6, scaled: 7.2, ratio: 2 },
    { figure: 'engagement ending statement: PostgreSQL CPU ms without sending its answer', base: 3.2, scaled: 4, ratio: 1.25 },
    { figure: 'engagement ending statement: PostgreSQL CPU us per answer row', base: 1.09, scaled: 1.07, ratio: 0.98 },
  ]);
});
