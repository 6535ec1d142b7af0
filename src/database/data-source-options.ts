import type { DataSourceOptions } from 'typeorm';
import { DEFAULT_POOL_SIZE } from '../config/app-config.js';
import { statementTimeouts } from '../shared/persistence/statement-timeouts.js';
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
      ...statementTimeouts,
      application_name: 'partner-reading-listening-api',
      // No JIT: the service's statements are short, and compiling one cost 85–193 ms where
      // running it took 0.9 ms (the webhook claim, under the lock every replica shares).
      options: '-c jit=off',
    },
  };
}

/**
 * The same database for the migrations: a migration over a large table, and a replica
 * waiting for another's migrations, take as long as they take (a timeout there failed the
 * start of every replica but the one migrating).
 */
export function migrationDataSourceOptions(options: DataSourceOptions): DataSourceOptions {
  const { onConnect: _onConnect, query_timeout: _queryTimeout, ...extra } = (options as { extra?: Record<string, unknown> }).extra ?? {};
  return { ...options, extra: { ...extra, max: 2 } } as DataSourceOptions;
}
