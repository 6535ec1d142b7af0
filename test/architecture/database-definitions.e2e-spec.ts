import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import pg from 'pg';
import { createTestDatabase } from '../support/test-database.js';
import { tableOwners } from '../support/table-owners.js';

/**
 * Rules that live in the database (plpgsql functions and triggers) have an owner. Each
 * module keeps the current text of its functions and of the triggers on its tables in
 * `src/modules/<module>/infrastructure/<module>.database.sql` (partition upkeep, shared by
 * every partitioned table, in `src/database/database.database.sql`), as
 * `pg_get_functiondef` and `pg_get_triggerdef` print them for a freshly migrated database.
 * Migrations are history; these files are what holds now, and this test keeps them equal.
 * After a migration changes a function or trigger:
 * `WRITE_DATABASE_DEFINITIONS=1 npx jest test/architecture/database-definitions.e2e-spec.ts`
 * rewrites the files (a new trigger goes to its table's owner; a new function not used by a
 * trigger must first be given a `-- function` header in its owner's file by hand).
 *
 * A function that writes another module's table (a cascade across a door) must say so in its
 * file (`-- cascade: <function> writes <table> (<owner>)`) and the owner of that table must
 * say it back (`-- cascaded into: <table> by <function> (<module>)`).
 */
type Definition = { key: string; text: string };
type Parsed = { definitions: Definition[]; cascades: string[]; cascadedInto: string[] };

const SHARED_OWNER = 'database';
const fileOf = (owner: string) =>
  owner === SHARED_OWNER ? resolve('src/database/database.database.sql') : resolve('src/modules', owner, 'infrastructure', `${owner}.database.sql`);

const HEADER = /^-- (function [\w.]+\(.*\)|trigger [\w.]+)$/;

export function parseDefinitions(text: string): Parsed {
  const definitions: Definition[] = [];
  const cascades: string[] = [];
  const cascadedInto: string[] = [];
  let current: Definition | undefined;
  for (const line of text.split('\n')) {
    const header = HEADER.exec(line);
    if (header) {
      current = { key: header[1], text: '' };
      definitions.push(current);
    } else if (line.startsWith('-- cascade: ')) cascades.push(line.slice('-- cascade: '.length));
    else if (line.startsWith('-- cascaded into: ')) cascadedInto.push(line.slice('-- cascaded into: '.length));
    else if (current) current.text += line + '\n';
  }
  for (const definition of definitions) definition.text = definition.text.trim();
  return { definitions, cascades, cascadedInto };
}

/** Tables a function body writes. */
export function tablesWritten(body: string): string[] {
  return [...new Set([...body.matchAll(/\b(?:INSERT INTO|UPDATE|DELETE FROM)\s+(?:public\.)?(\w+)/gi)].map((m) => m[1]))];
}

/** The cross-module writes of `owner`'s functions that either side does not declare. */
export function undeclaredCascades(files: Map<string, Parsed>, tableOwner: (table: string) => string | undefined): string[] {
  const missing: string[] = [];
  for (const [owner, parsed] of files) {
    for (const { key, text } of parsed.definitions.filter((d) => d.key.startsWith('function '))) {
      const fn = key
        .slice('function '.length)
        .replace(/\(.*$/, '')
        .replace(/^public\./, '');
      for (const table of tablesWritten(text)) {
        const target = tableOwner(table);
        if (!target || target === owner) continue;
        if (!parsed.cascades.includes(`${fn} writes ${table} (${target})`)) missing.push(`${owner}: -- cascade: ${fn} writes ${table} (${target})`);
        if (!files.get(target)?.cascadedInto.includes(`${table} by ${fn} (${owner})`))
          missing.push(`${target}: -- cascaded into: ${table} by ${fn} (${owner})`);
      }
    }
  }
  return missing;
}

async function databaseDefinitions(
  url: string,
): Promise<{ functions: Map<string, string>; triggers: Map<string, { table: string; text: string; fn: string }> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const functions = await client.query<{ key: string; text: string }>(`
      SELECT 'function ' || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' AS key, pg_get_functiondef(p.oid) AS text
        FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
       WHERE n.nspname = 'public' AND p.prokind = 'f'
         AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')`);
    const triggers = await client.query<{ key: string; tbl: string; text: string; fn: string }>(`
      SELECT 'trigger ' || c.relname || '.' || t.tgname AS key, c.relname AS tbl, pg_get_triggerdef(t.oid) AS text, p.proname AS fn
        FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_proc p ON p.oid = t.tgfoid
       WHERE n.nspname = 'public' AND NOT t.tgisinternal AND t.tgparentid = 0`);
    return {
      functions: new Map(functions.rows.map((r) => [r.key, r.text.trim()])),
      triggers: new Map(triggers.rows.map((r) => [r.key, { table: r.tbl, text: r.text.trim() + ';', fn: r.fn }])),
    };
  } finally {
    await client.end();
  }
}

function readFiles(): Map<string, Parsed> {
  const files = new Map<string, Parsed>();
  const owners = [SHARED_OWNER, ...readdirSync(resolve('src/modules'))];
  for (const owner of owners) if (existsSync(fileOf(owner))) files.set(owner, parseDefinitions(readFileSync(fileOf(owner), 'utf8')));
  return files;
}

function render(preamble: string, definitions: Definition[]): string {
  const body = definitions
    .sort((a, b) => a.key.localeCompare(b.key))
    .map((d) => `-- ${d.key}\n${d.text}\n`)
    .join('\n');
  return `${preamble}${body}`;
}

describe('functions and triggers in the database', () => {
  let database: Awaited<ReturnType<typeof databaseDefinitions>>;
  let owners: Map<string, string>;
  beforeAll(async () => {
    database = await databaseDefinitions(await createTestDatabase());
    owners = await tableOwners();
  });

  test('each is written, as the database holds it, in its owning module', () => {
    const files = readFiles();
    const declared = new Map<string, { owner: string; text: string }>();
    for (const [owner, parsed] of files) for (const d of parsed.definitions) declared.set(d.key, { owner, text: d.text });
    const actual = new Map<string, string>([...database.functions, ...[...database.triggers].map(([k, v]) => [k, v.text] as const)]);

    if (process.env.WRITE_DATABASE_DEFINITIONS === '1') {
      const byOwner = new Map<string, Definition[]>();
      for (const [key, text] of actual) {
        const trigger = database.triggers.get(key);
        const owner =
          declared.get(key)?.owner ??
          (trigger
            ? owners.get(trigger.table)
            : [...database.triggers.values()].filter((t) => `function ${t.fn}()` === key).map((t) => owners.get(t.table))[0]);
        if (!owner) throw new Error(`${key}: no owner; give it a "-- ${key}" header in its owner's file`);
        byOwner.set(owner, [...(byOwner.get(owner) ?? []), { key, text }]);
      }
      for (const [owner, definitions] of byOwner) {
        const existing = existsSync(fileOf(owner)) ? readFileSync(fileOf(owner), 'utf8') : '';
        const preamble = existing.slice(0, existing.search(/^-- (function|trigger) /m) === -1 ? existing.length : existing.search(/^-- (function|trigger) /m));
        writeFileSync(fileOf(owner), render(preamble, definitions));
      }
      return;
    }

    const differences: string[] = [];
    for (const [key, text] of actual) {
      const written = declared.get(key);
      if (!written) differences.push(`${key}: in the database, in no module's file`);
      else if (written.text !== text) differences.push(`${key}: ${relative('.', fileOf(written.owner))} differs from the database`);
    }
    for (const [key, { owner }] of declared) if (!actual.has(key)) differences.push(`${key}: in ${owner}'s file, not in the database`);
    expect(differences).toEqual([]);
  });

  test("a trigger is written by its table's owner, and a trigger function by an owner of a table it is on", () => {
    const misplaced: string[] = [];
    for (const [owner, parsed] of readFiles()) {
      for (const { key } of parsed.definitions) {
        const trigger = database.triggers.get(key);
        if (trigger && owners.get(trigger.table) !== owner) misplaced.push(`${key} in ${owner}, table owned by ${owners.get(trigger.table)}`);
        const onTables = [...database.triggers.values()].filter((t) => `function ${t.fn}()` === key).map((t) => owners.get(t.table));
        if (onTables.length > 0 && !onTables.includes(owner)) misplaced.push(`${key} in ${owner}, its triggers on tables of ${onTables.join(', ')}`);
      }
    }
    expect(misplaced).toEqual([]);
  });

  test('a function that writes another module’s table is declared in both modules', () => {
    expect(undeclaredCascades(readFiles(), (table) => owners.get(table))).toEqual([]);
  });
});

test('planted violations fail: an undeclared cascade, a changed text', () => {
  const kids = parseDefinitions('-- function kids_remark()\nCREATE FUNCTION kids_remark() AS $$ UPDATE kids_activity SET x = 1 $$\n');
  const entitlements = parseDefinitions('-- trigger entitlement_history.remark\nCREATE TRIGGER remark ...;\n');
  const owner = (table: string) => ({ kids_activity: 'kids-engagement', entitlement_history: 'entitlements' })[table];
  expect(undeclaredCascades(new Map([['entitlements', kids]]), owner)).toEqual([
    'entitlements: -- cascade: kids_remark writes kids_activity (kids-engagement)',
    'kids-engagement: -- cascaded into: kids_activity by kids_remark (entitlements)',
  ]);
  const declaredBoth = new Map([
    ['entitlements', parseDefinitions('-- cascade: kids_remark writes kids_activity (kids-engagement)\n-- function kids_remark()\nUPDATE kids_activity\n')],
    ['kids-engagement', parseDefinitions('-- cascaded into: kids_activity by kids_remark (entitlements)\n')],
  ]);
  expect(undeclaredCascades(declaredBoth, owner)).toEqual([]);
  expect(entitlements.definitions).toEqual([{ key: 'trigger entitlement_history.remark', text: 'CREATE TRIGGER remark ...;' }]);
  expect(tablesWritten('INSERT INTO public.a VALUES (1); UPDATE b SET x = 1; DELETE FROM c;')).toEqual(['a', 'b', 'c']);
});
