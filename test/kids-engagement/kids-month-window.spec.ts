import { DomainError } from '../../src/shared/errors/domain-error.js';
import { kidsMonthWindow, settledAt } from '../../src/modules/kids-engagement/application/kids-month-window.js';

/** DECISIONS 15: whole UTC calendar months, at most 12, each ended 72 hours before the request. */
const NOW = new Date('2026-11-28T12:00:00Z');

function refusal(start: string, end: string, now = NOW): string {
  try {
    kidsMonthWindow(start, end, now);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe('invalid_request');
    return (error as DomainError).description;
  }
  throw new Error(`${start}..${end} was accepted`);
}

describe("the children's window", () => {
  it('accepts one to twelve whole settled months, and lists them', () => {
    expect(kidsMonthWindow('2026-10-01', '2026-10-31', NOW)).toEqual({
      start: '2026-10-01',
      end: '2026-10-31',
      from: new Date('2026-10-01T00:00:00Z'),
      until: new Date('2026-11-01T00:00:00Z'),
      months: ['2026-10-01'],
    });
    expect(kidsMonthWindow('2024-02-01', '2024-02-29', NOW).months).toEqual(['2024-02-01']);
    expect(kidsMonthWindow('2025-11-01', '2026-10-31', NOW).months).toHaveLength(12);
    expect(kidsMonthWindow('0001-01-01', '0001-12-31', NOW).months[11]).toBe('0001-12-01');
  });

  it('refuses any other window, naming the nearest whole-month window', () => {
    const cases: [string, string, string][] = [
      // One day short, one day over, a day on either side: the month(s) nearest.
      ['2026-09-01', '2026-10-30', 'use period_start=2026-09-01&period_end=2026-10-31.'],
      ['2026-09-01', '2026-11-01', 'use period_start=2026-09-01&period_end=2026-10-31.'],
      ['2026-08-31', '2026-10-31', 'use period_start=2026-09-01&period_end=2026-10-31.'],
      ['2026-09-02', '2026-10-31', 'use period_start=2026-09-01&period_end=2026-10-31.'],
      // Two windows a day apart: the differencing of privacy.md 3.1.
      ['2026-10-02', '2026-10-31', 'use period_start=2026-10-01&period_end=2026-10-31.'],
      ['2026-10-20', '2026-10-20', 'use period_start=2026-10-01&period_end=2026-10-31.'],
      // 367 days; 13 whole months: the most recent twelve.
      ['2024-01-01', '2025-01-01', 'use period_start=2024-01-01&period_end=2024-12-31.'],
      ['2025-01-01', '2026-01-31', 'use period_start=2025-02-01&period_end=2026-01-31.'],
    ];
    for (const [start, end, proposal] of cases) {
      expect([start, end, refusal(start, end)]).toEqual([start, end, expect.stringContaining(proposal)]);
    }
    expect(refusal('2026-10-02', '2026-10-31')).toMatch(/^The period must be whole UTC calendar months, at most 12/);
  });

  it('refuses an end before the start, proposing the months between them', () => {
    expect(refusal('2026-10-31', '2026-09-01')).toBe('period_end must not be before period_start: use period_start=2026-09-01&period_end=2026-10-31.');
  });

  it('says when a proposed window that is not settled yet can be asked', () => {
    expect(refusal('2026-11-02', '2026-11-30')).toBe(
      'The period must be whole UTC calendar months, at most 12: period_start the first day of a month, period_end the last day of the same or a later month: ' +
        'use period_start=2026-11-01&period_end=2026-11-30 (2026-11 can be asked from 2026-12-04T00:00:00.000Z).',
    );
  });

  it('refuses a month that ended less than 72 hours ago, saying from when it can be asked', () => {
    expect(settledAt('2026-11-01')).toEqual(new Date('2026-12-04T00:00:00Z'));
    expect(refusal('2026-10-01', '2026-11-30')).toBe(
      '2026-11 is not settled: a month can be asked 72 hours after it ends, so this period can be asked from 2026-12-04T00:00:00.000Z.',
    );
    const justBefore = new Date('2026-12-03T23:59:59.999Z');
    expect(refusal('2026-11-01', '2026-11-30', justBefore)).toMatch(/from 2026-12-04T00:00:00.000Z/);
    expect(kidsMonthWindow('2026-11-01', '2026-11-30', new Date('2026-12-04T00:00:00Z')).months).toEqual(['2026-11-01']);
  });

  it('keeps the messages of a missing part or a malformed date', () => {
    expect(refusal('2026-10-01', '31/10/2026')).toMatch(/period_end must be a calendar date/);
    expect(refusal('2026-02-30', '2026-03-31')).toMatch(/period_start must be a calendar date/);
  });
});
