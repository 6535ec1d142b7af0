import { DataSource } from 'typeorm';
import { migrationDataSourceOptions } from './data-source-options.js';

// Any constant shared by all replicas: it names the advisory lock that serialises migrations.
const MIGRATION_LOCK = 7_340_112;

/**
 * Applies pending migrations. Replicas starting together take turns on an advisory lock,
 * so each migration runs exactly once. Returns the names of the migrations applied.
 * They run on their own two connections, free of the service's statement timeouts: one
 * holds the lock while the migrations use the other.
 */
export async function runMigrations(dataSource: DataSource): Promise<string[]> {
  const migrator = await new DataSource(migrationDataSourceOptions(dataSource.options)).initialize();
  const runner = migrator.createQueryRunner();
  try {
    await runner.connect();
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const applied = await migrator.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await runner.release();
    await migrator.destroy();
  }
}

/** What each data source applied when it started (DatabaseModule), for `db:migrate` to report. */
const appliedAtStart = new WeakMap<DataSource, string[]>();

export async function runMigrationsAtStart(dataSource: DataSource): Promise<void> {
  appliedAtStart.set(dataSource, await runMigrations(dataSource));
}

/** The migrations applied when `dataSource` started, and any pending since. */
export async function migrationsAppliedBy(dataSource: DataSource): Promise<string[]> {
  return [...(appliedAtStart.get(dataSource) ?? []), ...(await runMigrations(dataSource))];
}
