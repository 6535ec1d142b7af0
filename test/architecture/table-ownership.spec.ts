import { readFileSync } from 'node:fs';
import { tableOwners } from '../support/table-owners.js';

/** The README's "who owns which tables" rows, as module → tables. */
export function readmeOwnership(readme: string): Map<string, string[]> {
  const start = readme.indexOf('| module | tables |');
  const rows = readme.slice(start).split('\n').slice(2);
  const owners = new Map<string, string[]>();
  for (const row of rows) {
    if (!row.startsWith('|')) break;
    const [module, tables] = row
      .split('|')
      .slice(1, 3)
      .map((cell) => cell.trim());
    // Only the tables listed before any parenthesis: what follows explains reads, not ownership.
    owners.set(
      module,
      [...tables.replace(/\(.*\)/s, '').matchAll(/`(\w+)`/g)].map((m) => m[1]),
    );
  }
  return owners;
}

/** Differences between the README's table and the entities each module lists. */
export function ownershipDifferences(readme: Map<string, string[]>, entities: Map<string, string>): string[] {
  const listed = new Map<string, string>();
  for (const [module, tables] of readme) for (const table of tables) listed.set(table, module);
  const differences: string[] = [];
  for (const [table, module] of entities) {
    if (!listed.has(table)) differences.push(`${table} (${module}): missing from the README`);
    else if (listed.get(table) !== module) differences.push(`${table}: README says ${listed.get(table)}, entities say ${module}`);
  }
  for (const [table, module] of listed) if (!entities.has(table)) differences.push(`${table} (${module}): in the README, no entity`);
  return differences;
}

test("the README's table of who owns which tables is the entities' own", async () => {
  const owners = await tableOwners();
  expect(owners.size).toBeGreaterThan(20);
  expect(ownershipDifferences(readmeOwnership(readFileSync('README.md', 'utf8')), owners)).toEqual([]);
});

test('planted violations fail: a missing table, a wrong owner, a table without entity', () => {
  const readme = readmeOwnership(
    '| module | tables |\n|---|---|\n| reading | `novel_progress`, `ghosts` (reads `endings`) |\n| playback | `kids_activity` |\n',
  );
  const entities = new Map([
    ['novel_progress', 'reading'],
    ['kids_activity', 'kids-engagement'],
    ['playback_positions', 'playback'],
  ]);
  expect(ownershipDifferences(readme, entities)).toEqual([
    'kids_activity: README says playback, entities say kids-engagement',
    'playback_positions (playback): missing from the README',
    'ghosts (reading): in the README, no entity',
  ]);
});
