import { invalidRequest } from '../../../shared/errors/domain-error.js';

/** The longest period a report may cover, in days, both ends included (DECISIONS 14, 15). */
export const MAX_WINDOW_DAYS = 366;

const DAY_MS = 86_400_000;
/**
 * Four-digit years from 0001: PostgreSQL has no year 0 (it counts 1 BC, 1 AD) and refuses
 * 0000-01-01, which would otherwise reach the query and fail it.
 */
const DATE_FORMAT = /^(?!0000)\d{4}-\d{2}-\d{2}$/;

/**
 * A reporting period of whole UTC days, both ends included. `from` is the first instant of
 * the first day and `until` the first instant after the last day, so instants are selected
 * with `from <= t < until` and calendar days with `start <= day <= end`.
 */
export interface ReportingWindow {
  /** YYYY-MM-DD */
  readonly start: string;
  /** YYYY-MM-DD */
  readonly end: string;
  readonly from: Date;
  readonly until: Date;
}

/** A query parameter holding a calendar date; names the parameter when it is not one. */
export function parseReportDate(name: string, value: string): Date {
  const date = new Date(`${value}T00:00:00Z`);
  // JavaScript rolls 2026-02-30 over to 2026-03-02: only a round trip proves a real date.
  if (!DATE_FORMAT.test(value) || Number.isNaN(date.getTime()) || isoDate(date) !== value) {
    throw invalidRequest(`${name} must be a calendar date in the format YYYY-MM-DD, from 0001-01-01 to 9999-12-31.`);
  }
  return date;
}

/** The window from `start` to `end` (UTC midnights), refused when reversed or too long. */
export function windowBetween(start: Date, end: Date): ReportingWindow {
  if (end < start) throw invalidRequest('period_end must not be before period_start.');
  const days = (end.getTime() - start.getTime()) / DAY_MS + 1;
  if (days > MAX_WINDOW_DAYS) {
    throw invalidRequest(`The period covers ${days} days; it may cover at most ${MAX_WINDOW_DAYS} (both ends included).`);
  }
  return { start: isoDate(start), end: isoDate(end), from: start, until: new Date(end.getTime() + DAY_MS) };
}

/** The window named by two required YYYY-MM-DD parameters. */
export function reportingWindow(periodStart: string, periodEnd: string): ReportingWindow {
  return windowBetween(parseReportDate('period_start', periodStart), parseReportDate('period_end', periodEnd));
}

/** The UTC calendar date of an instant, YYYY-MM-DD. */
export const isoDate = (instant: Date): string => instant.toISOString().slice(0, 10);
