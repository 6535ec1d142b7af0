import fc from 'fast-check';
import { countSpans } from '../../src/modules/analytics/domain/count-spans.js';
import { isoDate, MAX_WINDOW_DAYS, reportingWindow, windowBetween } from '../../src/modules/analytics/domain/reporting-window.js';

const DAY_MS = 86_400_000;

/** Each day's weight in the spans: +1 per month read whole and per added span, -1 per taken-away span. */
function weights(spans: ReturnType<typeof countSpans>): Map<string, number> {
  const weight = new Map<string, number>();
  const add = (first: string, last: string, sign: number) => {
    for (let day = Date.parse(first); day <= Date.parse(last); day += DAY_MS) {
      const key = isoDate(new Date(day));
      weight.set(key, (weight.get(key) ?? 0) + sign);
    }
  };
  if (spans.months) {
    const end = new Date(spans.months.last);
    end.setUTCMonth(end.getUTCMonth() + 1, 0);
    add(spans.months.first, isoDate(end), 1);
  }
  for (const { first, last, sign } of spans.days) add(first, last, sign);
  return new Map([...weight].filter(([, n]) => n !== 0));
}

const daysRead = (spans: ReturnType<typeof countSpans>) =>
  spans.days.reduce((total, { first, last }) => total + (Date.parse(last) - Date.parse(first)) / DAY_MS + 1, 0);

describe('count spans of a window', () => {
  it('count every day of the window once and no other day, reading at most 15 days per edge', () => {
    const windows = fc
      .record({
        start: fc.integer({ min: Date.UTC(1999, 0, 1) / DAY_MS, max: Date.UTC(2040, 0, 1) / DAY_MS }),
        length: fc.integer({ min: 1, max: MAX_WINDOW_DAYS }),
      })
      .map(({ start, length }) => windowBetween(new Date(start * DAY_MS), new Date((start + length - 1) * DAY_MS)));
    fc.assert(
      fc.property(windows, (window) => {
        const spans = countSpans(window);
        const expected = new Map<string, number>();
        for (let day = window.from.getTime(); day < window.until.getTime(); day += DAY_MS) expected.set(isoDate(new Date(day)), 1);
        expect(weights(spans)).toEqual(expected);
        expect(daysRead(spans)).toBeLessThanOrEqual(30);
        expect(spans.months?.first.endsWith('-01') ?? true).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('read whole months as sums, and the edges as days or a sum minus the days outside', () => {
    expect(countSpans(reportingWindow('2026-10-01', '2026-10-31'))).toEqual({ months: { first: '2026-10-01', last: '2026-10-01' }, days: [] });
    // The bench's period: two days of September, October whole, November to today.
    expect(countSpans(reportingWindow('2026-09-29', '2026-11-28'))).toEqual({
      months: { first: '2026-10-01', last: '2026-11-01' },
      days: [
        { first: '2026-09-29', last: '2026-09-30', sign: 1 },
        { first: '2026-11-29', last: '2026-11-30', sign: -1 },
      ],
    });
    // Across a year, the first month by its sum minus its first days.
    expect(countSpans(reportingWindow('2025-12-04', '2026-02-10'))).toEqual({
      months: { first: '2025-12-01', last: '2026-01-01' },
      days: [
        { first: '2025-12-01', last: '2025-12-03', sign: -1 },
        { first: '2026-02-01', last: '2026-02-10', sign: 1 },
      ],
    });
    // Inside one month: its days, or its sum minus both ends.
    expect(countSpans(reportingWindow('2026-02-10', '2026-02-23'))).toEqual({ months: null, days: [{ first: '2026-02-10', last: '2026-02-23', sign: 1 }] });
    expect(countSpans(reportingWindow('2026-02-02', '2026-02-27'))).toEqual({
      months: { first: '2026-02-01', last: '2026-02-01' },
      days: [
        { first: '2026-02-01', last: '2026-02-01', sign: -1 },
        { first: '2026-02-28', last: '2026-02-28', sign: -1 },
      ],
    });
  });

  it('reach the first and the last date a report accepts', () => {
    expect(countSpans(reportingWindow('0001-01-01', '0001-02-03'))).toEqual({
      months: { first: '0001-01-01', last: '0001-01-01' },
      days: [{ first: '0001-02-01', last: '0001-02-03', sign: 1 }],
    });
    expect(countSpans(reportingWindow('9999-11-30', '9999-12-31'))).toEqual({
      months: { first: '9999-12-01', last: '9999-12-01' },
      days: [{ first: '9999-11-30', last: '9999-11-30', sign: 1 }],
    });
  });
});
