import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source-options.js';
import { MIGRATIONS } from '../../src/database/migrations/index.js';
import { migrationsIndex } from '../../src/database/migrations-index.js';
import { createTestDatabase } from '../support/test-database.js';

/**
 * The schema is made by migrations only; the entities mirror it, one for every table. If
 * they drift apart, a migration generated from the entities would change the schema.
 */
describe('the entities and the migrated schema', () => {
  let dataSource: DataSource;
  beforeAll(async () => {
    dataSource = await new DataSource(dataSourceOptions(await createTestDatabase(), 2)).initialize();
  });
  afterAll(() => dataSource?.destroy());

  test('generating a migration from the entities after all migrations changes nothing', async () => {
    const { upQueries } = await dataSource.driver.createSchemaBuilder().log();
    expect(upQueries.map((query) => query.query)).toEqual([]);
  });

  test('every table of the migrated schema has an entity, so the check above covers the whole schema', async () => {
    // Tables and partitioned parents; a parent's monthly partitions are its storage, not tables of their own.
    const tables = await dataSource.query<{ name: string }[]>(
      `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition`,
    );
    const mapped = new Set(dataSource.entityMetadatas.map((entity) => entity.tableName));
    expect(tables.length).toBeGreaterThan(1);
    expect(tables.map(({ name }) => name).filter((name) => name !== 'schema_migrations' && !mapped.has(name))).toEqual([]);
  });

  test('an entity the schema builder skips has exactly its table’s columns, types and nullability', async () => {
    const skipped = dataSource.entityMetadatas.filter((entity) => !entity.synchronize);
    expect(skipped.length).toBeGreaterThan(0);
    for (const entity of skipped) {
      const columns = await dataSource.query<{ name: string; type: string; nullable: boolean }[]>(
        `SELECT column_name AS name, data_type AS type, is_nullable = 'YES' AS nullable
         FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1`,
        [entity.tableName],
      );
      const mapped = entity.columns.map((column) => ({
        name: column.databaseName,
        type: dataSource.driver.normalizeType(column),
        nullable: column.isNullable,
      }));
      const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
      expect({ table: entity.tableName, columns: mapped.sort(byName) }).toEqual({ table: entity.tableName, columns: columns.sort(byName) });
    }
  });
});

/** The TypeORM CLI as a developer runs it, through the npm scripts and `ormconfig.ts`. */
describe('the TypeORM CLI through ormconfig.ts', () => {
  let env: Record<string, string | undefined>;
  beforeAll(async () => {
    // A database of its own: these tests revert and re-apply a migration.
    env = { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: await createTestDatabase(), DATA_DIR: mkdtempSync(join(tmpdir(), 'prl-orm-')) };
  });

  const npm = (...args: string[]) => run('npm', ['run', '--silent', ...args], env);
  const appliedMigrations = (stdout: string) => stdout.match(/^\[X\] \d+ \w+$/gm)?.map((line) => line.split(' ')[2]) ?? [];

  test('migration:show lists every migration as applied to a migrated database', async () => {
    const show = await npm('migration:show');
    expect(show).toMatchObject({ code: 0 });
    expect(appliedMigrations(show.stdout)).toEqual(MIGRATIONS.map((migration) => migration.name));
  });

  test('migration:revert undoes the last migration and migration:run applies it again', async () => {
    const names = MIGRATIONS.map((migration) => migration.name);
    expect(await npm('migration:revert')).toMatchObject({ code: 0 });
    const reverted = await npm('migration:show');
    expect(appliedMigrations(reverted.stdout)).toEqual(names.slice(0, -1));
    expect(reverted.stdout).toContain(`[ ] ${names.at(-1)}`);

    expect(await npm('migration:run')).toMatchObject({ code: 0 });
    expect(appliedMigrations((await npm('migration:show')).stdout)).toEqual(names);
  });

  test('generating a migration through ormconfig.ts finds nothing to change', async () => {
    const check = await npm('typeorm', '--', 'migration:generate', '--check', '-d', 'dist-typeorm/ormconfig.js', 'src/database/migrations/drift');
    expect(check).toMatchObject({ code: 0, stdout: expect.stringContaining('No changes in database schema were found') });
  });
});

test('migrations/index.ts is what migration:generate writes: every migration file, in order', () => {
  const dir = join('src', 'database', 'migrations');
  expect(migrationsIndex(dir)).toBe(readFileSync(join(dir, 'index.ts'), 'utf8'));
});

function run(command: string, args: string[], env: Record<string, string | undefined>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
