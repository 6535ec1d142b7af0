import { readFileSync } from 'node:fs';
import pg from 'pg';
import { COMMANDS } from '../../src/cli/commands.js';
import { createTestDatabase } from '../support/test-database.js';

/**
 * Issue 38, item 10: the runbooks in docs/operations.md exist, and what they tell an
 * operator to type works: every SQL query runs on the service's schema, every CLI command
 * exists, and the sizing rule starts from docs/scaling.md's figures.
 */
const operations = readFileSync('docs/operations.md', 'utf8');

it('has a runbook for each incident of issue 38 and a sizing rule', () => {
  const headings = [...operations.matchAll(/^#{2,3} (.+)$/gm)].map((match) => match[1]);
  expect(headings).toEqual(
    expect.arrayContaining([
      'Runbooks',
      'Webhook backlog growing',
      'A partner stuck on 429',
      'Primary failover',
      'Standby lagging for hours',
      'Size replicas and pools',
    ]),
  );
});

it('runs every SQL query of docs/operations.md on the schema the migrations make', async () => {
  const queries = [...operations.matchAll(/```sql\n([\s\S]*?)```/g)].map((match) => match[1].replace(/^ +/gm, ''));
  expect(queries.length).toBeGreaterThanOrEqual(4);
  const client = new pg.Client({ connectionString: await createTestDatabase() });
  await client.connect();
  try {
    for (const query of queries) {
      await client.query('BEGIN READ ONLY');
      await expect(client.query(query).then(() => 'ran')).resolves.toBe('ran');
      await client.query('ROLLBACK');
    }
  } finally {
    await client.end();
  }
});

it('names only CLI commands that exist', () => {
  const named = [...operations.matchAll(/cli(?::prod)? -- ([a-z]+:[a-z]+)/g)].map((match) => match[1]);
  expect(named.length).toBeGreaterThanOrEqual(3);
  expect(named.filter((name) => !Object.hasOwn(COMMANDS, name))).toEqual([]);
});

it("derives the sizing rule from docs/scaling.md's per-core figures", () => {
  const scaling = readFileSync('docs/scaling.md', 'utf8');
  const sizing = operations.slice(operations.indexOf('### Size replicas and pools'), operations.indexOf('## Scale reads'));
  const figures = [...sizing.matchAll(/≈ ([\d ]+\d)/g)].map((match) => match[1]);
  expect(figures).toEqual(expect.arrayContaining(['5 500', '4 800', '12 000']));
  for (const figure of figures) expect(scaling).toContain(`≈ ${figure} per replica core`);
});
