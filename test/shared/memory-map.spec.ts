import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * docs/memory.md lists what each replica keeps in memory (issue 26). Every memo of the code
 * (shared/memo.ts: byObject, bounded, perInstant) is created with a name; each name must
 * have its row, and each row a memo: the table and the code cannot drift apart.
 */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const memoNamesInCode = sourceFiles('src')
  .filter((file) => !file.endsWith(join('shared', 'memo.ts')))
  .flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/\b(?:byObject|bounded|perInstant)\(\s*'([^']+)'/g)].map((match) => match[1]))
  .sort();

const memoSection = readFileSync('docs/memory.md', 'utf8').split('## Memos')[1].split('\n## ')[0];
const memoNamesInDocs = [...memoSection.matchAll(/^\| `([^`]+)` \|/gm)].map((match) => match[1]).sort();

it('lists every memo of the code in docs/memory.md, and no memo the code does not have', () => {
  expect(memoNamesInCode.length).toBeGreaterThan(5);
  expect(memoNamesInDocs).toEqual(memoNamesInCode);
});

it('gives each memo one name', () => {
  expect(new Set(memoNamesInCode).size).toBe(memoNamesInCode.length);
});

/**
 * Every class field that holds a `Map`, `Set` or `WeakMap` grows with something: the class
 * must be named in docs/memory.md, so what each replica keeps in memory has one list.
 */
export function collectionFields(source: string): { owner: string; field: string }[] {
  const found: { owner: string; field: string }[] = [];
  let owner = '';
  for (const line of source.split('\n')) {
    const declared = /^(?:export\s+)?(?:abstract\s+)?class\s+(\w+)/.exec(line.trim());
    if (declared) owner = declared[1];
    const field = /^\s*(?:private|protected|public)?\s*(?:readonly\s+)?(\w+)\s*(?::[^=]+)?=\s*new\s+(?:Map|Set|WeakMap)\b/.exec(line);
    if (field && owner) found.push({ owner, field: field[1] });
  }
  return found;
}

it('names in docs/memory.md every class that keeps a Map, Set or WeakMap in a field', () => {
  const docs = readFileSync('docs/memory.md', 'utf8');
  const fields = sourceFiles('src').flatMap((file) => collectionFields(readFileSync(file, 'utf8')));
  expect(fields.length).toBeGreaterThan(5);
  const unlisted = fields.filter(({ owner }) => !docs.includes(`\`${owner}\``)).map(({ owner, field }) => `${owner}.${field}`);
  expect(unlisted).toEqual([]);
});

it('finds a collection field of a class (the planted case)', () => {
  const source = 'export class Planted {\n  private readonly kept = new Map<string, number>();\n  constructor(private readonly other: string) {}\n}\n';
  expect(collectionFields(source)).toEqual([{ owner: 'Planted', field: 'kept' }]);
});
