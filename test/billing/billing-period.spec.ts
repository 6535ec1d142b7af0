import fc from 'fast-check';
import { billingPeriod } from '../../src/modules/billing/domain/billing-period.js';

const at = (iso: string) => new Date(iso);

test('a past month is measured to its end, with each of its days', () => {
  const period = billingPeriod('2026-02', at('2026-11-23T10:00:00Z'))!;
  expect(period.start.toISOString()).toBe('2026-02-01T00:00:00.000Z');
  expect(period.measuredUntil.toISOString()).toBe('2026-03-01T00:00:00.000Z');
  expect(period.dayStarts).toHaveLength(28);
  expect(period.dayStarts.at(-1)!.toISOString()).toBe('2026-02-28T00:00:00.000Z');
});

test('the current month is measured to now, with the days begun so far', () => {
  const period = billingPeriod('2026-11', at('2026-11-23T10:00:00Z'))!;
  expect(period.measuredUntil.toISOString()).toBe('2026-11-23T10:00:00.000Z');
  expect(period.dayStarts.map((d) => d.getUTCDate())).toEqual(Array.from({ length: 23 }, (_, i) => i + 1));
  // The first instant of a month: one day has begun.
  expect(billingPeriod('2026-12', at('2026-12-01T00:00:00Z'))!.dayStarts).toHaveLength(1);
});

test('a month that has not begun has no period', () => {
  expect(billingPeriod('2026-12', at('2026-11-30T23:59:59Z'))).toBeNull();
  expect(billingPeriod('9999-12', at('2026-11-23T10:00:00Z'))).toBeNull();
});

test('early years and leap years: days are the calendar month, in UTC', () => {
  expect(billingPeriod('0001-01', at('2026-11-23T10:00:00Z'))!.start.toISOString()).toBe('0001-01-01T00:00:00.000Z');
  expect(billingPeriod('2024-02', at('2026-11-23T10:00:00Z'))!.dayStarts).toHaveLength(29);
});

test('every day start is 00:00 UTC, inside the month, not after now', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1970, max: 2100 }),
      fc.integer({ min: 1, max: 12 }),
      fc.date({ min: new Date('1970-01-01'), max: new Date('2100-12-31'), noInvalidDate: true }),
      (year, month, now) => {
        const period = billingPeriod(`${year}-${String(month).padStart(2, '0')}`, now);
        if (!period) return;
        expect(period.dayStarts.length).toBeGreaterThanOrEqual(1);
        for (const day of period.dayStarts) {
          expect(day.getUTCHours() + day.getUTCMinutes() + day.getUTCSeconds() + day.getUTCMilliseconds()).toBe(0);
          expect(day.getUTCMonth()).toBe(month - 1);
          expect(day.getTime()).toBeLessThanOrEqual(now.getTime());
        }
        expect(period.measuredUntil.getTime()).toBeLessThanOrEqual(now.getTime());
      },
    ),
  );
});
