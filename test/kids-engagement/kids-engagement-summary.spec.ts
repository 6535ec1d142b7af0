import fc from 'fast-check';
import { reportingWindow } from '../../src/modules/analytics/index.js';
import { kidsEngagementSummary, MIN_SAMPLE_THRESHOLD } from '../../src/modules/kids-engagement/domain/kids-engagement-summary.js';

const window = reportingWindow('2026-10-01', '2026-10-31');
const generatedAt = new Date('2026-11-01T12:00:00Z');
const measures = fc.record({
  accountsWithActivity: fc.integer({ min: MIN_SAMPLE_THRESHOLD, max: 1e6 }),
  storiesCompleted: fc.nat(),
  minutesRead: fc.double({ min: 0, max: 1e7, noNaN: true }),
});

/** Every number anywhere in the summary. */
const numbersIn = (value: unknown): number[] =>
  typeof value === 'number' ? [value] : value && typeof value === 'object' ? Object.values(value).flatMap(numbersIn) : [];

describe("children's summary suppression", () => {
  it('withholds every figure at 29 active accounts and gives them at 30', () => {
    expect(MIN_SAMPLE_THRESHOLD).toBe(30);
    expect(kidsEngagementSummary(window, { activeAccounts: 29, accountsWithActivity: 29, storiesCompleted: 40, minutesRead: 900 }, generatedAt)).toEqual({
      periodStart: '2026-10-01',
      periodEnd: '2026-10-31',
      activeAccounts: null,
      storiesCompleted: null,
      avgMinutesPerActiveAccount: null,
      minSampleThreshold: 30,
      suppressed: true,
      generatedAt: new Date('2026-11-01T12:00:00.000Z'),
    });
    expect(kidsEngagementSummary(window, { activeAccounts: 30, accountsWithActivity: 30, storiesCompleted: 40, minutesRead: 900 }, generatedAt)).toMatchObject({
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
          const summary = kidsEngagementSummary(window, { ...rest, activeAccounts, accountsWithActivity }, generatedAt);
          expect(summary.suppressed).toBe(true);
          expect(numbersIn(summary)).toEqual([MIN_SAMPLE_THRESHOLD]);
        },
      ),
    );
  });

  it('never leaks a number other than the threshold under the threshold', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MIN_SAMPLE_THRESHOLD - 1 }), measures, (activeAccounts, rest) => {
        const summary = kidsEngagementSummary(window, { activeAccounts, ...rest }, generatedAt);
        expect(summary.suppressed).toBe(true);
        expect(numbersIn(summary)).toEqual([MIN_SAMPLE_THRESHOLD]);
      }),
    );
  });

  it('gives the average of the per-account sums at or over the threshold', () => {
    fc.assert(
      fc.property(fc.integer({ min: MIN_SAMPLE_THRESHOLD, max: 1e6 }), measures, (activeAccounts, rest) => {
        const summary = kidsEngagementSummary(window, { activeAccounts, ...rest }, generatedAt);
        expect(summary).toMatchObject({ suppressed: false, activeAccounts: activeAccounts, storiesCompleted: rest.storiesCompleted });
        expect(summary.avgMinutesPerActiveAccount).toBeCloseTo(rest.minutesRead / activeAccounts, 2);
      }),
    );
  });
});
