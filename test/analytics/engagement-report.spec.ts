import fc from 'fast-check';
import {
  engagementReport,
  labelEndings,
  MINIMUM_COHORT_SIZE,
  omitSmallCohorts,
  type ChosenEnding,
  type EndingCount,
} from '../../src/modules/analytics/domain/engagement-report.js';
import { reportingWindow } from '../../src/modules/analytics/domain/reporting-window.js';

const ending = (count: number, choice = `choice-${count}`): EndingCount => ({ novelId: 'the-heir', choiceId: choice, label: choice, count });

describe('small-cohort suppression of the ending distribution', () => {
  it('omits a row of 19 readers and keeps a row of 20', () => {
    expect(MINIMUM_COHORT_SIZE).toBe(20);
    expect(omitSmallCohorts([ending(19), ending(20)])).toEqual([ending(20)]);
  });

  it('never lets a row under the minimum through, and keeps every other row in order', () => {
    const rows = fc.array(fc.record({ novelId: fc.string(), choiceId: fc.string(), label: fc.string(), count: fc.nat({ max: 60 }) }));
    fc.assert(
      fc.property(rows, (input) => {
        const kept = omitSmallCohorts(input);
        expect(kept.every((row) => row.count >= MINIMUM_COHORT_SIZE)).toBe(true);
        expect(kept).toEqual(input.filter((row) => row.count >= MINIMUM_COHORT_SIZE));
      }),
    );
  });
});

describe('labelling the ending counts from the catalog', () => {
  /** Labels as the catalog snapshot builds them: `entries` in the database's order (novel, sort order, choice), positions in that order. */
  const catalogLabels = (entries: readonly (readonly [novel: string, choice: string, label: string])[]) => {
    const labels = new Map<string, Map<string, { label: string; position: number }>>();
    for (const [position, [novel, choice, label]] of entries.entries()) {
      if (!labels.has(novel)) labels.set(novel, new Map());
      labels.get(novel)!.set(choice, { label, position });
    }
    return labels;
  };
  const chosen = (novelId: string, choiceId: string, count = 20): ChosenEnding => ({ novelId, choiceId, count });

  it("labels each row and puts the rows in the catalog's order, unknown endings after their novel's, unknown novels last", () => {
    // The database's order, which is not JavaScript's here: the-pact before the-heir.
    const labels = catalogLabels([
      ['the-pact', 'keep', 'Keep the pact'],
      ['the-heir', 'leave', 'Leave at dawn'],
      ['the-heir', 'stay', 'Stay at the manor'],
      ['the-heir', 'wait', 'Wait'],
    ]);
    const rows = [
      chosen('the-heir', 'wait', 27),
      chosen('unknown-novel', 'x', 28),
      chosen('the-heir', 'vanished', 26),
      chosen('the-pact', 'break', 21),
      chosen('Unknown-novel', 'y', 29),
      chosen('the-heir', 'leave', 24),
      chosen('the-heir', 'dropped', 23),
      chosen('the-pact', 'keep', 22),
      chosen('the-heir', 'stay', 25),
    ];
    expect(labelEndings(rows, labels)).toEqual([
      { novelId: 'the-pact', choiceId: 'keep', label: 'Keep the pact', count: 22 },
      { novelId: 'the-pact', choiceId: 'break', label: 'break', count: 21 },
      { novelId: 'the-heir', choiceId: 'leave', label: 'Leave at dawn', count: 24 },
      { novelId: 'the-heir', choiceId: 'stay', label: 'Stay at the manor', count: 25 },
      { novelId: 'the-heir', choiceId: 'wait', label: 'Wait', count: 27 },
      { novelId: 'the-heir', choiceId: 'dropped', label: 'dropped', count: 23 },
      { novelId: 'the-heir', choiceId: 'vanished', label: 'vanished', count: 26 },
      { novelId: 'Unknown-novel', choiceId: 'y', label: 'y', count: 29 },
      { novelId: 'unknown-novel', choiceId: 'x', label: 'x', count: 28 },
    ]);
    expect(labelEndings([], labels)).toEqual([]);
  });

  it('gives, from rows in any order, what ORDER BY novel, sort order NULLS LAST, choice gives over a join with the catalog', () => {
    // A collation unlike JavaScript's order (B < D < a < c there), few ids and sort orders, so that novels repeat and orders tie.
    const collate = (a: string, b: string) => a.localeCompare(b, 'en');
    const id = fc.constantFrom('a', 'B', 'c', 'D');
    const catalog = fc.uniqueArray(fc.tuple(id, id, fc.string(), fc.integer({ min: -2, max: 2 })), { selector: ([novel, choice]) => `${novel} ${choice}` });
    const counted = fc.uniqueArray(fc.tuple(id, id, fc.nat()), { selector: ([novel, choice]) => `${novel} ${choice}` });
    fc.assert(
      fc.property(catalog, counted, (entries, counts) => {
        const byCatalogOrder = [...entries].sort(([n1, c1, , s1], [n2, c2, , s2]) => collate(n1, n2) || s1 - s2 || collate(c1, c2));
        const labels = catalogLabels(byCatalogOrder.map(([novel, choice, label]) => [novel, choice, label] as const));
        const entry = (row: ChosenEnding) => entries.find(([novel, choice]) => novel === row.novelId && choice === row.choiceId);
        const known = (row: ChosenEnding) => entries.some(([novel]) => novel === row.novelId);
        const codeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
        const rows = counts.map(([novelId, choiceId, count]) => chosen(novelId, choiceId, count));
        const expected = [...rows]
          .sort((a, b) => {
            if (known(a) !== known(b)) return known(a) ? -1 : 1;
            if (!known(a)) return codeUnits(a.novelId, b.novelId) || codeUnits(a.choiceId, b.choiceId);
            const [x, y] = [entry(a)?.[3] ?? null, entry(b)?.[3] ?? null];
            const bySortOrder = x === y ? 0 : x === null ? 1 : y === null ? -1 : x - y;
            const byChoice = x === null && y === null ? codeUnits(a.choiceId, b.choiceId) : collate(a.choiceId, b.choiceId);
            return collate(a.novelId, b.novelId) || bySortOrder || byChoice;
          })
          .map((row) => ({ ...row, label: entry(row)?.[2] ?? row.choiceId }));
        expect(labelEndings(rows, labels)).toEqual(expected);
      }),
    );
  });
});

describe('engagement report formulas', () => {
  const window = reportingWindow('2026-10-01', '2026-10-31');
  const generatedAt = new Date('2026-11-01T00:00:00Z');

  it('divides distinct chapters by readers and finished by started novels', () => {
    const report = engagementReport(window, { activeReaders: 8, chaptersRead: 30 }, { started: 16, finished: 5 }, [ending(25), ending(3)], generatedAt);
    expect(report).toEqual({
      periodStart: '2026-10-01',
      periodEnd: '2026-10-31',
      activeReaders: 8,
      avgChaptersReadPerActiveReader: 3.75,
      completionRate: 0.3125,
      endingDistribution: [ending(25)],
      minimumCohortSize: 20,
      generatedAt: new Date('2026-11-01T00:00:00.000Z'),
    });
  });

  it('answers 0, not NaN, when nobody read and nothing was started', () => {
    const report = engagementReport(window, { activeReaders: 0, chaptersRead: 0 }, { started: 0, finished: 0 }, [], generatedAt);
    expect(report).toMatchObject({ activeReaders: 0, avgChaptersReadPerActiveReader: 0, completionRate: 0, endingDistribution: [] });
  });

  it('rounds the average to 2 decimals and the rate to 4', () => {
    const report = engagementReport(window, { activeReaders: 3, chaptersRead: 10 }, { started: 3, finished: 2 }, [], generatedAt);
    expect(report.avgChaptersReadPerActiveReader).toBe(3.33);
    expect(report.completionRate).toBe(0.6667);
  });
});
