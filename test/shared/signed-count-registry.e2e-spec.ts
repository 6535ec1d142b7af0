import pg from 'pg';
import { SignedCountFolding } from '../../src/shared/persistence/signed-counts.js';
import { useTestApp } from '../support/test-app.js';

/**
 * Every table of signed counts (a `settled` column: triggers append deltas, the job settles
 * them, ADR 0129) is registered with the folding job by its owning module; a table whose
 * deltas nobody folds would grow with every write and slow every report that sums it.
 */
export function unfoldedTables(withSettledColumn: string[], registered: string[]): string[] {
  return [
    ...withSettledColumn.filter((table) => !registered.includes(table)).map((table) => `${table}: has a settled column, folded by no module`),
    ...registered.filter((table) => !withSettledColumn.includes(table)).map((table) => `${table}: registered, has no settled column`),
    ...registered.filter((table, index) => registered.indexOf(table) !== index).map((table) => `${table}: registered twice`),
  ];
}

describe('the signed-count tables and their folding', () => {
  const t = useTestApp();

  test('every table with a settled column is folded or settled by the job, once', async () => {
    const client = new pg.Client({ connectionString: t.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'settled' AND data_type = 'boolean'`,
      );
      const registered = t.app.get(SignedCountFolding).registeredTables();
      expect(registered.length).toBeGreaterThan(4);
      expect(unfoldedTables(rows.map((r) => r.table_name).sort(), registered)).toEqual([]);
    } finally {
      await client.end();
    }
  });
});

test('a table nobody folds, one without a settled column and a double registration fail (planted)', () => {
  expect(unfoldedTables(['a_counts', 'b_counts'], ['b_counts', 'c_counts', 'b_counts'])).toEqual([
    'a_counts: has a settled column, folded by no module',
    'c_counts: registered, has no settled column',
    'b_counts: registered twice',
  ]);
});
