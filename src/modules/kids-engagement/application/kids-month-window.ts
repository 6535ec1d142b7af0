import { invalidRequest } from '../../../shared/errors/domain-error.js';
import { isoDate, parseReportDate, type ReportingWindow } from '../../analytics/index.js';
import { MAX_LIVE_EFFECTIVE_AT_AGE_HOURS } from '../../entitlements/index.js';

/** The longest children's window, in whole months (DECISIONS 15). */
export const MAX_WINDOW_MONTHS = 12;

/**
 * A month may be asked once it ended this long ago: no live entitlement write can reach
 * back into it any more (DECISIONS 15, 24), so its entitled accounts are final.
 */
export const SETTLEMENT_HOURS = MAX_LIVE_EFFECTIVE_AT_AGE_HOURS;

/** A children's window: whole UTC calendar months, oldest first, each named by its first day. */
export interface KidsMonthWindow extends ReportingWindow {
  /** YYYY-MM-01 of each month of the window, in order. */
  readonly months: readonly string[];
}

const DAY_MS = 86_400_000;

/** Months counted from year 0, so that month arithmetic is integer arithmetic. */
type MonthIndex = number;

const monthIndex = (day: Date): MonthIndex => day.getUTCFullYear() * 12 + day.getUTCMonth();
const firstInstant = (month: MonthIndex): Date => {
  const date = new Date(Date.UTC(2000, 0, 1));
  date.setUTCFullYear(Math.floor(month / 12), month % 12, 1);
  return date;
};
/** The last day of the month, at 00:00 UTC. */
const lastDay = (month: MonthIndex): Date => new Date(firstInstant(month + 1).getTime() - DAY_MS);

/** The first instant after the month, and so the instant from which it is settled. */
export const settledAt = (month: string): Date =>
  new Date(firstInstant(monthIndex(new Date(`${month}T00:00:00Z`)) + 1).getTime() + SETTLEMENT_HOURS * 3_600_000);

/** The first day (YYYY-MM-01) of the month `back` months before `month`. */
export const monthsBefore = (month: string, back: number): string => isoDate(firstInstant(monthIndex(new Date(`${month}T00:00:00Z`)) - back));

function monthWindow(first: MonthIndex, last: MonthIndex): KidsMonthWindow {
  const months = Array.from({ length: last - first + 1 }, (_, i) => isoDate(firstInstant(first + i)));
  return { start: months[0], end: isoDate(lastDay(last)), from: firstInstant(first), until: firstInstant(last + 1), months };
}

/** The window of the one month `month` (YYYY-MM-01). */
export const oneMonthWindow = (month: string): KidsMonthWindow => {
  const index = monthIndex(new Date(`${month}T00:00:00Z`));
  return monthWindow(index, index);
};

/** Days of [start, end] (both included) outside [from, until), and the reverse. */
function daysApart(start: Date, end: Date, window: KidsMonthWindow): number {
  const days = (a: number, b: number) => Math.max(0, (b - a) / DAY_MS);
  const asked = [start.getTime(), end.getTime() + DAY_MS];
  const given = [window.from.getTime(), window.until.getTime()];
  const overlap = days(Math.max(asked[0], given[0]), Math.min(asked[1], given[1]));
  return days(asked[0], asked[1]) + days(given[0], given[1]) - 2 * overlap;
}

/**
 * The whole-month window of at most 12 months closest to the days asked (fewest days added
 * or dropped), the more recent one on a tie: what an error proposes instead.
 */
function nearestMonthWindow(start: Date, end: Date): KidsMonthWindow {
  const [first, last] = start <= end ? [start, end] : [end, start];
  const lastMonths = [monthIndex(last), monthIndex(last) - 1];
  const candidates = lastMonths.flatMap((lastMonth) =>
    [monthIndex(first), monthIndex(first) + 1, lastMonth - MAX_WINDOW_MONTHS + 1]
      .filter((firstMonth) => firstMonth <= lastMonth && lastMonth - firstMonth < MAX_WINDOW_MONTHS)
      .map((firstMonth) => monthWindow(firstMonth, lastMonth)),
  );
  const distance = (window: KidsMonthWindow) => daysApart(first, last, window);
  return candidates.reduce((best, next) => (distance(next) < distance(best) || (distance(next) === distance(best) && next.until > best.until) ? next : best));
}

const useInstead = (window: KidsMonthWindow) => `use period_start=${window.start}&period_end=${window.end}`;

/** When the last month of the window can be asked: said with every refusal that proposes an unsettled window. */
function settledClause(window: KidsMonthWindow, now: Date): string {
  const last = window.months[window.months.length - 1];
  const at = settledAt(last);
  return at > now ? ` (${last.slice(0, 7)} can be asked from ${at.toISOString()})` : '';
}

/**
 * The children's window of two required YYYY-MM-DD parameters (DECISIONS 15): whole UTC
 * calendar months, at most 12, every one ended at least SETTLEMENT_HOURS before `now`.
 * Any other window is refused with the nearest one that is accepted, so that no two
 * accepted windows differ by less than a month.
 */
export function kidsMonthWindow(periodStart: string, periodEnd: string, now: Date): KidsMonthWindow {
  const start = parseReportDate('period_start', periodStart);
  const end = parseReportDate('period_end', periodEnd);
  const nearest = nearestMonthWindow(start, end);
  const propose = (problem: string) => invalidRequest(`${problem}: ${useInstead(nearest)}${settledClause(nearest, now)}.`);
  if (end < start) throw propose('period_end must not be before period_start');
  const wholeMonths = start.getUTCDate() === 1 && lastDay(monthIndex(end)).getTime() === end.getTime();
  if (!wholeMonths || monthIndex(end) - monthIndex(start) >= MAX_WINDOW_MONTHS) {
    throw propose(
      `The period must be whole UTC calendar months, at most ${MAX_WINDOW_MONTHS}: period_start the first day of a month, period_end the last day of the same or a later month`,
    );
  }
  const window = monthWindow(monthIndex(start), monthIndex(end));
  const last = window.months[window.months.length - 1];
  if (settledAt(last) > now) {
    throw invalidRequest(
      `${last.slice(0, 7)} is not settled: a month can be asked ${SETTLEMENT_HOURS} hours after it ends, so this period can be asked from ${settledAt(last).toISOString()}.`,
    );
  }
  return window;
}
