import pg from 'pg';
import { slowestPlanNodes } from '../../bench/load/explain.js';
import { createTestDatabase } from '../support/test-database.js';

/**
 * What the bench prints when the webhook claim misses its target (bench/load/webhook-backlog.ts):
 * one more execution's slowest plan nodes, longest first, with nothing it wrote kept.
 */
let db: pg.Client;

beforeAll(async () => {
  db = new pg.Client({ connectionString: await createTestDatabase() });
  await db.connect();
  await db.query('CREATE TABLE plan_probe (id int PRIMARY KEY, note text)');
  await db.query(`INSERT INTO plan_probe SELECT i, 'row ' || i FROM generate_series(1, 20000) AS i`);
  await db.query('ANALYZE plan_probe');
});

afterAll(() => db.end());

it('names the slowest nodes first, with their time, rows, loops and blocks', async () => {
  const nodes = await slowestPlanNodes(db, 'SELECT count(*) FROM plan_probe WHERE note LIKE $1', ['row 1%'], 2);
  expect(nodes).toHaveLength(2);
  expect(nodes[0]).toMatch(/^(Finalize )?Aggregate: \d+\.\d ms, 1 rows × 1 loops, \d+ blocks$/);
  expect(nodes.some((node) => /^Seq Scan on plan_probe: \d+\.\d ms, \d+ rows × \d+ loops, [1-9]\d* blocks$/.test(node) || node.startsWith('Gather'))).toBe(
    true,
  );
  const ms = nodes.map((node) => Number(/: (\d+\.\d) ms/.exec(node)![1]));
  expect(ms[0]).toBeGreaterThanOrEqual(ms[1]);
});

it('rolls back what the explained statement wrote', async () => {
  const nodes = await slowestPlanNodes(db, 'UPDATE plan_probe SET note = $1 WHERE id <= 10', ['changed']);
  expect(nodes[0]).toMatch(/^ModifyTable on plan_probe: /);
  const { rows } = await db.query<{ changed: number }>(`SELECT count(*)::int AS changed FROM plan_probe WHERE note = 'changed'`);
  expect(rows[0].changed).toBe(0);
});
