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
  const labels = new Map([
    [
      'the-heir',
      new Map([
        ['stay', { label: 'Stay at the manor', sortOrder: 2 }],
        ['leave', { label: 'Leave at dawn', sortOrder: 1 }],
        ['wait', { label: 'Wait', sortOrder: 2 }],
      ]),
    ],
    ['the-pact', new Map([['keep', { label: 'Keep the pact', sortOrder: -5 }]])],
  ]);
  const chosen = (novelId: string, choiceId: string, count = 20): ChosenEnding => ({ novelId, choiceId, count });

  it('labels each row and orders each novel by sort order, ties and unknown endings in the order given, novels as given', () => {
    // As the database answers: novels in its collation order (here not JavaScript's), choices in id order.
    const rows = [
      chosen('the-pact', 'break', 21),
      chosen('the-pact', 'keep', 22),
      chosen('the-heir', 'dropped', 23),
      chosen('the-heir', 'leave', 24),
      chosen('the-heir', 'stay', 25),
      chosen('the-heir', 'vanished', 26),
      chosen('the-heir', 'wait', 27),
      chosen('unknown-novel', 'x', 28),
    ];
    expect(labelEndings(rows, labels)).toEqual([
      { novelId: 'the-pact', choiceId: 'keep', label: 'Keep the pact', count: 22 },
      { novelId: 'the-pact', choiceId: 'break', label: 'break', count: 21 },
      { novelId: 'the-heir', choiceId: 'leave', label: 'Leave at dawn', count: 24 },
      { novelId: 'the-heir', choiceId: 'stay', label: 'Stay at the manor', count: 25 },
      { novelId: 'the-heir', choiceId: 'wait', label: 'Wait', count: 27 },
      { novelId: 'the-heir', choiceId: 'dropped', label: 'dropped', count: 23 },
      { novelId: 'the-heir', choiceId: 'vanished', label: 'vanished', count: 26 },
      { novelId: 'unknown-novel', choiceId: 'x', label: 'x', count: 28 },
    ]);
    expect(labelEndings([], labels)).toEqual([]);
  });

  it('gives what ORDER BY novel, sort order NULLS LAST, choice gives over the rows as the database orders them', () => {
    // Few novel and choice ids with few sort orders, so that novels repeat and orders tie.
    const id = fc.constantFrom('a', 'b', 'c', 'd');
    const catalog = fc.array(fc.tuple(id, id, fc.string(), fc.integer({ min: -2, max: 2 })));
    const counted = fc.uniqueArray(fc.tuple(id, id, fc.nat()), { selector: ([novel, choice]) => `${novel} ${choice}` });
    fc.assert(
      fc.property(catalog, counted, (entries, counts) => {
        const known = new Map<string, Map<string, { label: string; sortOrder: number }>>();
        for (const [novel, choice, label, sortOrder] of entries) {
          if (!known.has(novel)) known.set(novel, new Map());
          known.get(novel)!.set(choice, { label, sortOrder });
        }
        // Rows by novel, then choice (the database's order; any fixed order of ids will do).
        const rows = counts
          .map(([novelId, choiceId, count]) => chosen(novelId, choiceId, count))
          .sort((a, b) => a.novelId.localeCompare(b.novelId) || a.choiceId.localeCompare(b.choiceId));
        const position = (row: ChosenEnding) => rows.indexOf(row);
        const novelRank = (row: ChosenEnding) => rows.findIndex((r) => r.novelId === row.novelId);
        const sortOrder = (row: ChosenEnding) => known.get(row.novelId)?.get(row.choiceId)?.sortOrder ?? null;
        const expected = [...rows]
          .sort((a, b) => {
            const [x, y] = [sortOrder(a), sortOrder(b)];
            const bySortOrder = x === y ? 0 : x === null ? 1 : y === null ? -1 : x - y;
            return novelRank(a) - novelRank(b) || bySortOrder || position(a) - position(b);
          })
          .map((row) => ({ ...row, label: known.get(row.novelId)?.get(row.choiceId)?.label ?? row.choiceId }));
        expect(labelEndings(rows, known)).toEqual(expected);
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
