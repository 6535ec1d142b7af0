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
