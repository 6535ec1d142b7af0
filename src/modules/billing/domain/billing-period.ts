/**
 * A billing period: a UTC calendar month (DECISIONS 25). Its figures are measured up to
 * its end, or up to now for the current month; the daily figure samples 00:00 UTC of each
 * of its days so far.
 */
export interface BillingPeriod {
  /** The month as requested, `YYYY-MM`. */
  month: string;
  /** 00:00 UTC of the month's first day. */
  start: Date;
  /** The instant the figures stand at: the month's end (exclusive), or now for the current month. */
  measuredUntil: Date;
  /** 00:00 UTC of each of the month's days that has begun, in order (at least the first). */
  dayStarts: Date[];
}

const DAY_MS = 86_400_000;

/** The period of `month`, or null when it has not begun at `now` (a month in the future). */
export function billingPeriod(month: string, now: Date): BillingPeriod | null {
  const [year, monthNumber] = month.split('-').map(Number);
  const start = new Date(0);
  start.setUTCFullYear(year, monthNumber - 1, 1);
  const end = new Date(0);
  end.setUTCFullYear(year, monthNumber, 1);
  if (start.getTime() > now.getTime()) return null;
  const measuredUntil = end.getTime() <= now.getTime() ? end : now;
  const dayStarts: Date[] = [];
  for (let day = start.getTime(); day < end.getTime() && day <= now.getTime(); day += DAY_MS) dayStarts.push(new Date(day));
  return { month, start, measuredUntil, dayStarts };
}

export const currentMonth = (now: Date) => now.toISOString().slice(0, 7);
