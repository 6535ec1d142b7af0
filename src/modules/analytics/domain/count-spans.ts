import { isoDate, type ReportingWindow } from './reporting-window.js';

/** Whole UTC days, both ends included (YYYY-MM-DD), whose day counts are added (1) or taken away (-1). */
export interface DaySpan {
  readonly first: string;
  readonly last: string;
  readonly sign: 1 | -1;
}

/**
 * Where a window's counts are read: the monthly sums of a run of months, plus or minus the
 * day counts of some days. A month's sums equal its days' counts, so the total is exactly
 * the window's days, whichever way each month is read.
 */
export interface CountSpans {
  /** The first days (YYYY-MM-01) of the first and last month read whole; null when none. */
  readonly months: { readonly first: string; readonly last: string } | null;
  readonly days: readonly DaySpan[];
}

const DAY_MS = 86_400_000;

/**
 * Every month the window covers whole is read as its sums. A month it covers in part is
 * read by its days in the window, or, when those are more than the days outside, as its sums
 * minus the days outside (a period ending today takes the rest of the month away, days with
 * nothing yet). So at most 15 days are read at each edge, however long the period.
 */
export function countSpans(window: ReportingWindow): CountSpans {
  const start = window.from.getTime();
  const end = window.until.getTime() - DAY_MS;
  const days: DaySpan[] = [];
  const span = (first: number, last: number, sign: 1 | -1) => days.push({ first: isoDate(new Date(first)), last: isoDate(new Date(last)), sign });
  let firstMonth: number | null = null;
  let lastMonth: number | null = null;
  for (let month = monthOf(start); month <= end; month = nextMonth(month)) {
    const monthEnd = nextMonth(month) - DAY_MS;
    const inside = (Math.min(end, monthEnd) - Math.max(start, month)) / DAY_MS + 1;
    const outside = (monthEnd - month) / DAY_MS + 1 - inside;
    if (outside > 0 && inside <= outside) {
      span(Math.max(start, month), Math.min(end, monthEnd), 1);
      continue;
    }
    // Only the first and the last month can be partial: the months read whole are consecutive.
    firstMonth ??= month;
    lastMonth = month;
    if (start > month) span(month, start - DAY_MS, -1);
    if (end < monthEnd) span(end + DAY_MS, monthEnd, -1);
  }
  const months = firstMonth === null || lastMonth === null ? null : { first: isoDate(new Date(firstMonth)), last: isoDate(new Date(lastMonth)) };
  return { months, days };
}

/** The first instant of the UTC month of `instant` (setUTCFullYear: Date.UTC maps years 0–99 to 1900–1999). */
function monthOf(instant: number): number {
  const date = new Date(instant);
  const first = new Date(0);
  first.setUTCFullYear(date.getUTCFullYear(), date.getUTCMonth(), 1);
  return first.getTime();
}

function nextMonth(month: number): number {
  const date = new Date(month);
  date.setUTCMonth(date.getUTCMonth() + 1, 1);
  return date.getTime();
}
