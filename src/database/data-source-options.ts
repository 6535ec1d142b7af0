import type { DataSourceOptions } from 'typeorm';
import { DEFAULT_POOL_SIZE } from '../config/app-config.js';
import { ENTITIES } from './entities.js';
import { MIGRATIONS } from './migrations/index.js';

/**
 * The one TypeORM configuration, shared by the service, the CLI, the tests and
 * `ormconfig.ts`. The schema changes only through migrations, never `synchronize`.
 */
export function dataSourceOptions(url: string, poolSize = DEFAULT_POOL_SIZE): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'schema_migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    logging: false,
    extra: {
      max: poolSize,
      connectionTimeoutMillis: 5000,
      idleTimeoutMillis: 30000,
      // A query never waits forever on a lost server: the service answers 503 instead.
      query_timeout: 30000,
      application_name: 'partner-reading-listening-api',
    },
  };
}
