import fc from 'fast-check';
import {
  kidsEngagementSummary,
  MIN_SAMPLE_THRESHOLD,
  type KidsEngagementMeasures,
  type KidsMonthFigures,
} from '../../src/modules/kids-engagement/domain/kids-engagement-summary.js';

const window = { start: '2026-10-01', end: '2026-10-31' };
const fixedAt = new Date('2026-11-05T12:00:00Z');
const measures = fc.record({
  accountsWithActivity: fc.integer({ min: MIN_SAMPLE_THRESHOLD, max: 1e6 }),
  storiesCompleted: fc.nat(),
  minutesRead: fc.double({ min: 0, max: 1e7, noNaN: true }),
});

/** October alone, fixed with these measures. */
const october = (m: KidsEngagementMeasures): KidsMonthFigures[] => [
  { month: '2026-10-01', ...m, activeAccountsOverMonths: Array(12).fill(m.activeAccounts), fixedAt },
];

/** Every number anywhere in the summary. */
const numbersIn = (value: unknown): number[] =>
  typeof value === 'number' ? [value] : value && typeof value === 'object' ? Object.values(value).flatMap(numbersIn) : [];

describe("children's summary suppression", () => {
  it('withholds every figure at 29 active accounts and gives them at 30', () => {
    expect(MIN_SAMPLE_THRESHOLD).toBe(30);
    expect(kidsEngagementSummary(window, october({ activeAccounts: 29, accountsWithActivity: 29, storiesCompleted: 40, minutesRead: 900 }))).toEqual({
      periodStart: '2026-10-01',
      periodEnd: '2026-10-31',
      activeAccounts: null,
      storiesCompleted: null,
      avgMinutesPerActiveAccount: null,
      minSampleThreshold: 30,
      suppressed: true,
      generatedAt: fixedAt,
    });
    expect(kidsEngagementSummary(window, october({ activeAccounts: 30, accountsWithActivity: 30, storiesCompleted: 40, minutesRead: 900 }))).toMatchObject({
      activeAccounts: 30,
      storiesCompleted: 40,
      avgMinutesPerActiveAccount: 30,
      suppressed: false,
    });
  });

  it('withholds every figure while fewer than 30 accounts have activity, whatever the active count', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: MIN_SAMPLE_THRESHOLD, max: 1e6 }),
        fc.integer({ min: 0, max: MIN_SAMPLE_THRESHOLD - 1 }),
        measures,
        (activeAccounts, accountsWithActivity, rest) => {
          const summary = kidsEngagementSummary(window, october({ ...rest, activeAccounts, accountsWithActivity }));
          expect(summary.suppressed).toBe(true);
          expect(numbersIn(summary)).toEqual([MIN_SAMPLE_THRESHOLD]);
        },
      ),
    );
  });

  it('never leaks a number other than the threshold under the threshold', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MIN_SAMPLE_THRESHOLD - 1 }), measures, (activeAccounts, rest) => {
        const summary = kidsEngagementSummary(window, october({ activeAccounts, ...rest }));
        expect(summary.suppressed).toBe(true);
        expect(numbersIn(summary)).toEqual([MIN_SAMPLE_THRESHOLD]);
      }),
    );
  });

  it('gives the average of the per-account sums at or over the threshold', () => {
    fc.assert(
      fc.property(fc.integer({ min: MIN_SAMPLE_THRESHOLD, max: 1e6 }), measures, (activeAccounts, rest) => {
        const summary = kidsEngagementSummary(window, october({ activeAccounts, ...rest }));
        expect(summary).toMatchObject({ suppressed: false, activeAccounts: activeAccounts, storiesCompleted: rest.storiesCompleted });
        expect(summary.avgMinutesPerActiveAccount).toBeCloseTo(rest.minutesRead / activeAccounts, 2);
      }),
    );
  });
});

describe('a window of several months', () => {
  const month = (m: string, figures: Partial<KidsMonthFigures>): KidsMonthFigures => ({
    month: m,
    activeAccounts: 40,
    accountsWithActivity: 30,
    storiesCompleted: 0,
    minutesRead: 0,
    activeAccountsOverMonths: Array(12).fill(40),
    fixedAt,
    ...figures,
  });
  const september = month('2026-09-01', { storiesCompleted: 5, minutesRead: 100 });

  it('sums stories and minutes, counts active accounts as the last month’s span, and is as new as its newest month', () => {
    const later = new Date('2026-11-20T08:00:00Z');
    const october = month('2026-10-01', { storiesCompleted: 7, minutesRead: 140, activeAccountsOverMonths: [40, 48, ...Array(10).fill(50)], fixedAt: later });
    expect(kidsEngagementSummary({ start: '2026-09-01', end: '2026-10-31' }, [september, october])).toEqual({
      periodStart: '2026-09-01',
      periodEnd: '2026-10-31',
      activeAccounts: 48,
      storiesCompleted: 12,
      avgMinutesPerActiveAccount: 5, // 240 / 48
      minSampleThreshold: 30,
      suppressed: false,
      generatedAt: later,
    });
  });

  it('is suppressed when one month alone is under a threshold, whatever the others', () => {
    for (const small of [{ accountsWithActivity: 29 }, { activeAccounts: 29 }]) {
      const summary = kidsEngagementSummary({ start: '2026-09-01', end: '2026-10-31' }, [september, month('2026-10-01', small)]);
      expect(summary).toMatchObject({ suppressed: true, activeAccounts: null, storiesCompleted: null, avgMinutesPerActiveAccount: null });
    }
  });
});
