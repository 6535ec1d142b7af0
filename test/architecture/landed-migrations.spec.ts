import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { MIGRATIONS } from '../../src/database/migrations/index.js';

/**
 * History is frozen: a migration that has landed never changes what it sends to the
 * database, and migrations share text only through versioned helpers that never change
 * either. `landed-migrations.json` holds every landed migration's `up` and `down`
 * statements (whitespace folded). A new migration is added to it with
 * `FREEZE_MIGRATIONS=1 npx jest test/architecture/landed-migrations.spec.ts`, which adds
 * entries and never rewrites one.
 */
const DIR = resolve('src/database/migrations');
const LANDED_FILE = resolve('test/architecture/landed-migrations.json');

type Recorded = Record<string, { up: string[]; down: string[] }>;

async function record(migration: MigrationInterface): Promise<{ up: string[]; down: string[] }> {
  const run = async (direction: 'up' | 'down') => {
    const statements: string[] = [];
    const runner = {
      query: async (sql: string, parameters?: unknown[]) => {
        statements.push(sql.replace(/\s+/g, ' ').trim() + (parameters?.length ? ` -- ${JSON.stringify(parameters)}` : ''));
        return [];
      },
    };
    await migration[direction](runner as unknown as QueryRunner);
    return statements;
  };
  return { up: await run('up'), down: await run('down') };
}

/** Each landed migration whose statements differ from what it sent when it landed. */
export function changedMigrations(recorded: Recorded, landed: Recorded): string[] {
  return Object.keys(landed).flatMap((name) => {
    if (!recorded[name]) return [`${name}: removed`];
    return (['up', 'down'] as const).filter((d) => JSON.stringify(recorded[name][d]) !== JSON.stringify(landed[name][d])).map((d) => `${name}.${d}: changed`);
  });
}

/** What a file in the migrations directory may import: TypeORM's types and versioned helpers (`helpers/<name>.v<N>.ts`). */
export function forbiddenMigrationImports(source: string, isHelper: boolean): string[] {
  const specifiers = [...source.matchAll(/(?:import|export)\s[^'"]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)|import\s+'([^']+)'/g)].map(
    (m) => m[1] ?? m[2] ?? m[3],
  );
  const allowed = isHelper ? /^(typeorm)$/ : /^(typeorm|\.\/helpers\/[a-z0-9-]+\.v\d+\.js)$/;
  return specifiers.filter((specifier) => !allowed.test(specifier));
}

const landed = (): Recorded => JSON.parse(readFileSync(LANDED_FILE, 'utf8')) as Recorded;

test('no landed migration changes what it sends to the database', async () => {
  const recorded: Recorded = {};
  for (const Migration of MIGRATIONS) {
    const migration = new Migration();
    recorded[migration.name ?? Migration.name] = await record(migration);
  }
  const frozen = landed();
  expect(changedMigrations(recorded, frozen)).toEqual([]);
  const unfrozen = Object.keys(recorded).filter((name) => !frozen[name]);
  if (process.env.FREEZE_MIGRATIONS === '1' && unfrozen.length > 0) {
    for (const name of unfrozen) frozen[name] = recorded[name];
    writeFileSync(LANDED_FILE, JSON.stringify(frozen, null, 2) + '\n');
  } else {
    // A migration not yet frozen fails until it is: run the command in this file's comment.
    expect(unfrozen).toEqual([]);
  }
});

test('a migration imports nothing of the project but versioned helpers; helpers import nothing', () => {
  const violations: string[] = [];
  for (const file of readdirSync(DIR).filter((f) => /^\d+-.+\.ts$/.test(f))) {
    violations.push(...forbiddenMigrationImports(readFileSync(join(DIR, file), 'utf8'), false).map((s) => `${file} → ${s}`));
  }
  for (const file of readdirSync(join(DIR, 'helpers'))) {
    expect(file).toMatch(/^[a-z0-9-]+\.v\d+\.ts$/);
    violations.push(...forbiddenMigrationImports(readFileSync(join(DIR, 'helpers', file), 'utf8'), true).map((s) => `helpers/${file} → ${s}`));
  }
  expect(violations).toEqual([]);
});

test('planted violations fail: a changed statement, an import of another migration or of the project', () => {
  const frozen = landed();
  const [first] = Object.keys(frozen);
  const changed = structuredClone(frozen);
  changed[first].down = [...changed[first].down, 'DROP TABLE partners'];
  expect(changedMigrations(changed, frozen)).toEqual([`${first}.down: changed`]);
  expect(forbiddenMigrationImports("import { rollUpFunction } from './1763900400000-reading-rollup.js';", false)).toEqual([
    './1763900400000-reading-rollup.js',
  ]);
  expect(forbiddenMigrationImports("import { WINDOW } from '../../modules/analytics/index.js';", false)).toEqual(['../../modules/analytics/index.js']);
  expect(forbiddenMigrationImports("import { x } from './helpers/signed-counts.js';", false)).toEqual(['./helpers/signed-counts.js']);
  expect(forbiddenMigrationImports("import { x } from './other.v1.js';", true)).toEqual(['./other.v1.js']);
});
