import { DataSource } from 'typeorm';
import { loadConfig } from './src/config/app-config.js';
import { dataSourceOptions } from './src/database/data-source-options.js';
import { locateDatabase } from './src/database/database-location.js';

/**
 * The data source of the TypeORM CLI (`npm run migration:show`, `migration:run`,
 * `migration:revert`, `migration:generate`; they run its build, `dist/ormconfig.js`):
 * the service's own options on the service's own database, `DATABASE_URL` when set,
 * otherwise the embedded server under `DATA_DIR/pg`. Loading this file locates the
 * database, so only the CLI loads it; code and tests use `dataSourceOptions`.
 */
async function cliDataSource(): Promise<DataSource> {
  const database = await locateDatabase(loadConfig(), () => undefined);
  const dataSource = new DataSource(dataSourceOptions(database.url, 2));
  // A command that ends without process.exit (`migration:generate --dryrun`) would otherwise
  // wait forever on an embedded server this file started, so destroying the data source
  // stops it. Commands that exit before destroying it (a failed connection) stop it on
  // exit: nothing async runs then, but stopping sends its signal at once, which suffices.
  const destroy = dataSource.destroy.bind(dataSource);
  dataSource.destroy = () => destroy().finally(() => database.release());
  process.once('exit', () => void database.release());
  return dataSource;
}

export default cliDataSource();
