import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

/**
 * Issue 40, item 3: a record a newcomer reads in an afternoon. The budget of docs/adr/README.md
 * and ADR 0001, checked: docs/ outside the contract copy within 30 000 words, at most 50 live
 * ADRs of at most 400 words each, docs/performance.md within 150 lines, bench/results/LOG.md a
 * table of one row per sitting, and every relative link of the record leading somewhere.
 */
export const BUDGET = { words: 30_000, adrs: 50, wordsPerAdr: 400, performanceLines: 150 };

/** Words as `wc -w` counts them: runs of characters other than white space. */
export function words(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** Lines as `wc -l` counts them: newline characters. */
export function lines(text: string): number {
  return text.split('\n').length - 1;
}

const ADR_FILE = /^\d{4}-[a-z0-9-]+\.md$/;

/** What breaks the word and ADR budgets, given the record's files (path → text). */
export function budgetViolations(files: Map<string, string>): string[] {
  const violations: string[] = [];
  const counted = [...files].filter(([path]) => path.endsWith('.md') && !path.startsWith('docs/contract/'));
  const total = counted.reduce((sum, [, text]) => sum + words(text), 0);
  if (total > BUDGET.words) violations.push(`docs/ outside docs/contract: ${total} words, over ${BUDGET.words}`);
  const adrs = [...files].filter(([path]) => path.startsWith('docs/adr/') && ADR_FILE.test(path.slice('docs/adr/'.length)));
  if (adrs.length > BUDGET.adrs) violations.push(`docs/adr: ${adrs.length} records, over ${BUDGET.adrs}`);
  for (const [path, text] of adrs) {
    if (words(text) > BUDGET.wordsPerAdr) violations.push(`${path}: ${words(text)} words, over ${BUDGET.wordsPerAdr}`);
  }
  const performance = files.get('docs/performance.md');
  if (performance === undefined) violations.push('docs/performance.md is missing');
  else if (lines(performance) > BUDGET.performanceLines) violations.push(`docs/performance.md: ${lines(performance)} lines, over ${BUDGET.performanceLines}`);
  return violations;
}

/**
 * What breaks LOG.md's shape: after its prose, one table whose header starts `| sitting`, then
 * its separator, then rows only to the end (no prose, no blank line), each with the header's
 * cells, and no sitting twice.
 */
export function logViolations(log: string): string[] {
  const rows = log.replace(/\n+$/, '').split('\n');
  const header = rows.findIndex((row) => /^\| sitting\b/.test(row));
  if (header < 0) return ['LOG.md has no table whose header starts "| sitting"'];
  const cells = (row: string) => row.replace(/^\||\|$/g, '').split('|').length;
  const violations: string[] = [];
  if (!/^\|(\s*:?-+:?\s*\|)+$/.test(rows[header + 1] ?? '')) violations.push(`LOG.md line ${header + 2}: not the table's separator`);
  const seen = new Set<string>();
  rows.slice(header + 2).forEach((row, index) => {
    const at = `LOG.md line ${header + 3 + index}`;
    if (!row.startsWith('| ') || !row.endsWith(' |')) return void violations.push(`${at}: not a table row (one line per sitting, no prose)`);
    if (cells(row) !== cells(rows[header])) violations.push(`${at}: ${cells(row)} cells, the header has ${cells(rows[header])}`);
    const sitting = row.split('|')[1].trim();
    if (seen.has(sitting)) violations.push(`${at}: sitting ${sitting} has a row already`);
    seen.add(sitting);
  });
  if (seen.size === 0) violations.push('LOG.md: the table has no sitting');
  return violations;
}

/** GitHub's anchor for a heading. */
export function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Relative links (`[text](target)`) whose file, or whose anchor in a Markdown file, does not exist. */
export function brokenLinks(files: Map<string, string>, exists: (path: string) => boolean): string[] {
  const anchors = (text: string) => new Set([...text.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchor(match[1])));
  const broken: string[] = [];
  for (const [path, text] of files) {
    const prose = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
    for (const [, target] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const [file, fragment] = target.split('#');
      const resolved = file === '' ? path : normalize(join(dirname(path), file));
      if (!files.has(resolved) && !exists(resolved)) broken.push(`${path}: ${target} (no ${resolved})`);
      else if (fragment && resolved.endsWith('.md')) {
        const linked = files.get(resolved) ?? readFileSync(resolved, 'utf8');
        if (!anchors(linked).has(fragment)) broken.push(`${path}: ${target} (no heading #${fragment} in ${resolved})`);
      }
    }
  }
  return broken;
}

function markdownUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? markdownUnder(path) : path.endsWith('.md') ? [path] : [];
  });
}

const record = new Map(markdownUnder('docs').map((path) => [path, readFileSync(path, 'utf8')]));

test('docs/ keeps its budget: words, ADR count, words per ADR, performance.md lines', () => {
  expect(record.size).toBeGreaterThan(10);
  expect(budgetViolations(record)).toEqual([]);
});

test('bench/results/LOG.md is one table row per sitting under its header', () => {
  expect(logViolations(readFileSync('bench/results/LOG.md', 'utf8'))).toEqual([]);
});

test('the ADR index lists every record once, and every line leads to a record', () => {
  const index = readFileSync('docs/adr/README.md', 'utf8');
  const listed = [...index.matchAll(/^- \[(\d{4})\]\((\d{4}-[a-z0-9-]+\.md)\)/gm)].map((match) => match[2]);
  const records = [...record.keys()].filter((path) => path.startsWith('docs/adr/') && ADR_FILE.test(path.slice(9))).map((path) => path.slice(9));
  expect(listed.toSorted()).toEqual(records.toSorted());
});

test('relative links of the record lead to files and headings that exist', () => {
  const linking = new Map([...record, ...['README.md', 'sdk/README.md', 'bench/results/LOG.md'].map((path) => [path, readFileSync(path, 'utf8')] as const)]);
  expect(brokenLinks(linking, existsSync)).toEqual([]);
});

describe('planted violations fail', () => {
  const adr = (count: number) => `# 0999. A record\n${'word '.repeat(count - 4)}\n`;
  const base = () =>
    new Map([
      ['docs/performance.md', 'line\n'.repeat(150)],
      ['docs/adr/0999-a-record.md', adr(400)],
      ['docs/adr/README.md', 'index '.repeat(900)],
      ['docs/contract/interface-v1.md', 'contract '.repeat(40_000)],
    ]);

  test('a budget within its limits passes, the contract copy apart', () => {
    expect(budgetViolations(base())).toEqual([]);
  });

  test('too many words outside docs/contract', () => {
    const files = base().set('docs/operations.md', 'word '.repeat(29_000));
    expect(budgetViolations(files)).toEqual(['docs/ outside docs/contract: 30450 words, over 30000']);
  });

  test('a 51st record, and a record over 400 words', () => {
    const files = base();
    for (let n = 1; n <= 50; n++) files.set(`docs/adr/${String(n).padStart(4, '0')}-r.md`, adr(10));
    files.set('docs/adr/0999-a-record.md', adr(401));
    expect(budgetViolations(files)).toEqual(['docs/adr: 51 records, over 50', 'docs/adr/0999-a-record.md: 401 words, over 400']);
  });

  test('performance.md over 150 lines', () => {
    expect(budgetViolations(base().set('docs/performance.md', 'line\n'.repeat(151)))).toEqual(['docs/performance.md: 151 lines, over 150']);
  });

  const log = '# Bench log\n\nProse.\n\n| sitting (UTC) | commit | what |\n|---|---|---|\n| 2026-11-28 10:00 | abc | fine |\n';

  test('a LOG.md of rows passes', () => {
    expect(logViolations(log)).toEqual([]);
  });

  test('prose under the table, a row with other cells, a sitting twice, no table', () => {
    expect(logViolations(`${log}\nA diary paragraph.\n`)).toEqual([
      'LOG.md line 8: not a table row (one line per sitting, no prose)',
      'LOG.md line 9: not a table row (one line per sitting, no prose)',
    ]);
    expect(logViolations(`${log}| 2026-11-28 11:00 | abc |\n`)).toEqual(['LOG.md line 8: 2 cells, the header has 3']);
    expect(logViolations(`${log}| 2026-11-28 10:00 | def | again |\n`)).toEqual(['LOG.md line 8: sitting 2026-11-28 10:00 has a row already']);
    expect(logViolations('# Bench log\n\nA diary.\n')).toEqual(['LOG.md has no table whose header starts "| sitting"']);
  });

  test('a link to a missing file and to a missing heading', () => {
    const files = new Map([
      ['docs/a.md', "# A\n\n## Errors and limits\n\nSee [b](b.md), [b's part](b.md#the-part), [here](#errors-and-limits), [web](https://example.com).\n"],
      ['docs/b.md', '# B\n\n## The part\n\nBack to [a](a.md#nowhere) and [gone](adr/0150-gone.md).\n'],
    ]);
    expect(brokenLinks(files, () => false)).toEqual([
      'docs/b.md: a.md#nowhere (no heading #nowhere in docs/a.md)',
      'docs/b.md: adr/0150-gone.md (no docs/adr/0150-gone.md)',
    ]);
  });
});
