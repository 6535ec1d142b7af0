import pg from 'pg';
import * as sql from '../baseline/sql.js';
import type { SeededData } from '../shared/seed.js';

/** How PostgreSQL runs one hot statement on the seeded data. */
export interface ExplainedStatement {
  name: string;
  /** The plan's nodes, outermost first, e.g. "Index Scan using novel_progress_pkey on novel_progress". */
  nodes: string[];
  /** Whether any node reads a whole table (a Seq Scan over more than a few hundred rows is a missing index). */
  sequentialScans: string[];
  executionMs: number;
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Actual Total Time'?: number;
  'Rows Removed by Filter'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

/** A plan's nodes, outermost first. */
const planNodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(planNodes)];

const nodeName = (node: PlanNode) =>
  `${node['Node Type']}${node['Index Name'] ? ` using ${node['Index Name']}` : ''}${node['Relation Name'] ? ` on ${node['Relation Name']}` : ''}`;

/**
 * The `top` plan nodes of one execution of `text` that took longest (their children
 * included), each as "name: ms, rows, loops, blocks": what a figure that missed its target
 * spent its time on. Run in a transaction rolled back, so a writing statement changes nothing.
 */
export async function slowestPlanNodes(db: pg.Client, text: string, parameters: unknown[], top = 6): Promise<string[]> {
  await db.query('BEGIN');
  try {
    const { rows } = await db.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, parameters);
    const nodes = planNodes((rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0].Plan);
    const ms = (node: PlanNode) => (node['Actual Total Time'] ?? 0) * (node['Actual Loops'] ?? 1);
    return nodes
      .toSorted((a, b) => ms(b) - ms(a))
      .slice(0, top)
      .map(
        (node) =>
          `${nodeName(node)}: ${ms(node).toFixed(1)} ms, ${node['Actual Rows'] ?? 0} rows × ${node['Actual Loops'] ?? 1} loops, ` +
          `${(node['Shared Hit Blocks'] ?? 0) + (node['Shared Read Blocks'] ?? 0)} blocks`,
      );
  } finally {
    await db.query('ROLLBACK');
  }
}

/**
 * EXPLAIN ANALYZE of every hot read (the service's statements, as the baseline sends them; the PUT's write is left out, EXPLAIN ANALYZE would run it) with parameters
 * from the seeded data, so the report shows which index
 * serves each one and that none reads a whole table.
 */
export async function explainHotStatements(url: string, data: SeededData): Promise<ExplainedStatement[]> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  const reader = data.readers[0];
  const partner = data.partnerId;
  const subscriber = { partner, environment: 'live', subscriber: reader.subscriberId };
  const { READING_STATEMENTS: reading, PLAYBACK_STATEMENTS: playback } = sql;
  const from = new Date(`${data.period.start}T00:00:00Z`);
  const until = new Date(new Date(`${data.period.end}T00:00:00Z`).getTime() + 86_400_000);
  const counts = sql.engagementCountParameters({ partnerId: partner, environment: 'live' }, { ...data.period, from, until });
  const { ENGAGEMENT_STATEMENTS: engagement } = sql;
  const statements: [string, string, unknown[]][] = [
    ['progress and features in a novel', reading.reader.text, reading.reader.bind({ ...subscriber, novel: reader.novelId })],
    ['progress and features of a subscriber', reading.readers.text, reading.readers.bind(subscriber)],
    ['playback position with the reader', playback.positionWithReader.text, playback.positionWithReader.bind({ ...subscriber, novel: reader.novelId })],
    ['credential', sql.CREDENTIAL.text, ['live_unknown']],
    ['failure budget', sql.RATE_LIMIT_LEVEL.text, ['token-failure:live_unknown:127.0.0.1', 10, 10 / 60]],
    ['engagement: reading totals', engagement.readingTotals, [...counts, data.period.start]],
    ['engagement: started novels', engagement.startedNovels, counts],
    ['engagement: ending counts', engagement.endingCounts, [...counts, sql.ENGAGEMENT_MINIMUM_COHORT]],
  ];
  const explained: ExplainedStatement[] = [];
  try {
    for (const [name, text, parameters] of statements) {
      const { rows } = await db.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, parameters);
      const plan = (rows[0]['QUERY PLAN'] as { Plan: PlanNode; 'Execution Time': number }[])[0];
      const all = planNodes(plan.Plan);
      const nodes = all.map(nodeName);
      const rowsRead = (node: PlanNode) => ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0)) * (node['Actual Loops'] ?? 1);
      const sequentialScans = all
        .filter((node) => node['Node Type'] === 'Seq Scan' && rowsRead(node) > 500)
        .map((node) => `${node['Relation Name']} (${rowsRead(node)} rows)`);
      explained.push({ name, nodes, sequentialScans, executionMs: Math.round(plan['Execution Time'] * 1000) / 1000 });
    }
  } finally {
    await db.end();
  }
  return explained;
}
