import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { createDatabaseIfMissing } from '../../src/database/database-location.js';
import { dataSourceOptions } from '../../src/database/data-source-options.js';
import { runMigrations } from '../../src/database/migrate.js';

// Serialises template creation across Jest workers.
const TEMPLATE_LOCK = 7_340_113;

/**
 * A fresh, migrated database of its own for the calling test file: a copy of a template
 * migrated once per run, so test files never see each other's rows.
 */
export async function createTestDatabase(): Promise<string> {
  const adminUrl = process.env.TEST_PG_ADMIN_URL;
  const runId = process.env.TEST_PG_RUN_ID;
  if (!adminUrl || !runId) throw new Error('Run the tests through Jest: its global setup prepares PostgreSQL.');
  const template = `prl_tpl_${runId}`;
  const name = `prl_t_${runId}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
    if (exists.rowCount === 0) await createTemplate(adminUrl, template);
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)} TEMPLATE ${pg.escapeIdentifier(template)}`);
  } finally {
    await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK]).catch(() => undefined);
    await admin.end();
  }
  return withDatabase(adminUrl, name);
}

async function createTemplate(adminUrl: string, template: string): Promise<void> {
  await createDatabaseIfMissing(adminUrl, template);
  const dataSource = await new DataSource(dataSourceOptions(withDatabase(adminUrl, template), 2)).initialize();
  try {
    await runMigrations(dataSource);
  } finally {
    await dataSource.destroy();
  }
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
