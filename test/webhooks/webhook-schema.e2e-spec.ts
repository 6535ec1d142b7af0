import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source-options.js';
import { createTestDatabase } from '../support/test-database.js';

describe('webhook schema', () => {
  it('is mirrored exactly by the entities: generating a migration would change none of its tables', async () => {
    const dataSource = await new DataSource(dataSourceOptions(await createTestDatabase(), 2)).initialize();
    try {
      const { upQueries } = await dataSource.driver.createSchemaBuilder().log();
      expect(upQueries.map((query) => query.query).filter((sql) => /webhook_/.test(sql))).toEqual([]);
    } finally {
      await dataSource.destroy();
    }
  });
});
