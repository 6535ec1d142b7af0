import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source-options.js';
import { createTestDatabase } from '../support/test-database.js';

/**
 * The schema is made by migrations only; the entities mirror it. If they drift apart, a
 * migration generated from the entities would change the schema: this lists what it would do.
 */
test('generating a migration from the entities after all migrations changes nothing', async () => {
  const dataSource = await new DataSource(dataSourceOptions(await createTestDatabase(), 2)).initialize();
  try {
    const { upQueries } = await dataSource.driver.createSchemaBuilder().log();
    expect(upQueries.map((query) => query.query)).toEqual([]);
  } finally {
    await dataSource.destroy();
  }
});
