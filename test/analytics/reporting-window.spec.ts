import fc from 'fast-check';
import { engagementWindow } from '../../src/modules/analytics/domain/engagement-report.js';
import { isoDate, MAX_WINDOW_DAYS, reportingWindow } from '../../src/modules/analytics/domain/reporting-window.js';
import { WINDOW_CLAMP_DAYS } from '../../src/database/migrations/helpers/signed-counts.v1.js';
import { DomainError } from '../../src/shared/errors/domain-error.js';

const DAY_MS = 86_400_000;

function refusal(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected an invalid_request refusal');
}

describe('reporting window', () => {
  it('accepts 366 days counting both ends and refuses 367', () => {
    expect(reportingWindow('2024-01-01', '2024-12-31')).toMatchObject({ start: '2024-01-01', end: '2024-12-31' });
    const tooLong = refusal(() => reportingWindow('2024-01-01', '2025-01-01'));
    expect(tooLong.kind).toBe('invalid_request');
    expect(tooLong.description).toContain('367 days');
  });

  it('accepts a single day and refuses an end before the start', () => {
    const oneDay = reportingWindow('2026-03-10', '2026-03-10');
    expect(oneDay.from.toISOString()).toBe('2026-03-10T00:00:00.000Z');
    expect(oneDay.until.toISOString()).toBe('2026-03-11T00:00:00.000Z');
    expect(refusal(() => reportingWindow('2026-03-10', '2026-03-09')).description).toMatch(/period_end must not be before period_start/);
  });

  it.each([
    ['2026-02-30', 'a day February does not have'],
    ['2025-02-29', 'a leap day of a common year'],
    ['2026-13-01', 'month 13'],
    ['2026-3-01', 'a one-digit month'],
    ['2026-03-01T00:00:00Z', 'a date-time'],
    ['', 'nothing'],
  ])('refuses %s (%s), naming the parameter', (bad) => {
    expect(refusal(() => reportingWindow(bad, '2026-03-31')).description).toMatch(/^period_start must be a calendar date/);
    expect(refusal(() => reportingWindow('2026-03-01', bad)).description).toMatch(/^period_end must be a calendar date/);
  });

  it('covers exactly the whole UTC days from start to end, for any accepted length', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }),
        fc.integer({ min: 1, max: 1000 }),
        (instant, days) => {
          const start = isoDate(instant);
          const end = isoDate(new Date(Date.parse(start) + (days - 1) * DAY_MS));
          if (days > MAX_WINDOW_DAYS) {
            expect(refusal(() => reportingWindow(start, end)).kind).toBe('invalid_request');
            return;
          }
          const window = reportingWindow(start, end);
          expect([window.start, window.end]).toEqual([start, end]);
          expect(window.until.getTime() - window.from.getTime()).toBe(days * DAY_MS);
        },
      ),
    );
  });
});

describe('engagement report window defaults', () => {
  const now = new Date('2026-11-23T15:30:00Z');

  it('is the current UTC month to today when no date is given', () => {
    expect(engagementWindow(undefined, undefined, now)).toMatchObject({ start: '2026-11-01', end: '2026-11-23' });
  });

  it("starts on the first day of period_end's month when only the end is given", () => {
    expect(engagementWindow(undefined, '2026-02-14', now)).toMatchObject({ start: '2026-02-01', end: '2026-02-14' });
  });

  it('ends today when only the start is given, and validates like any window', () => {
    expect(engagementWindow('2026-06-01', undefined, now)).toMatchObject({ start: '2026-06-01', end: '2026-11-23' });
    expect(refusal(() => engagementWindow('2026-12-01', undefined, now)).kind).toBe('invalid_request');
    expect(refusal(() => engagementWindow('2025-11-01', undefined, now)).description).toMatch(/at most 366/);
  });
});

test('the day counts clamp previous days to the longest period: a longer period would need new counts', () => {
  // The counts fold every previous day older than WINDOW_CLAMP_DAYS into one; a period
  // longer than that would count a reader whose previous day lies inside it.
  expect(MAX_WINDOW_DAYS).toBeLessThanOrEqual(WINDOW_CLAMP_DAYS);
});
