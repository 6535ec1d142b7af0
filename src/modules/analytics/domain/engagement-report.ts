import { isoDate, parseReportDate, windowBetween, type ReportingWindow } from './reporting-window.js';

/** Ending rows with fewer readers than this are left out of the report (contract 2, 8). */
export const MINIMUM_COHORT_SIZE = 20;

/** Reading activity in a period (DECISIONS 14). */
export interface ReadingTotals {
  /** Distinct subscribers with activity. */
  activeReaders: number;
  /** Distinct (subscriber, novel, chapter) with activity. */
  chaptersRead: number;
}

/** Novels started in a period, and how many of those are finished now. */
export interface StartedNovels {
  started: number;
  finished: number;
}

/** How many readers chose one ending of one novel in a period. */
export interface EndingCount {
  novel_id: string;
  choice_id: string;
  label: string;
  count: number;
}

/** The engagement report of contract section 2: aggregates only, never a subscriber. */
export interface EngagementReport {
  period_start: string;
  period_end: string;
  active_readers: number;
  avg_chapters_read_per_active_reader: number;
  completion_rate: number;
  ending_distribution: EndingCount[];
  minimum_cohort_size: number;
  generated_at: string;
}

/**
 * The period of a report request. Both ends are optional: the end defaults to today
 * (UTC) and the start to the first day of the end's month, so a bare request covers the
 * current UTC month to today.
 */
export function engagementWindow(periodStart: string | undefined, periodEnd: string | undefined, now: Date): ReportingWindow {
  const end = parseReportDate('period_end', periodEnd ?? isoDate(now));
  const start = periodStart === undefined ? new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth(), 1)) : parseReportDate('period_start', periodStart);
  return windowBetween(start, end);
}

/**
 * Small-cohort suppression: a row with fewer than `minimum` readers could point at a
 * handful of identifiable people, so it is left out entirely rather than rounded.
 */
export function omitSmallCohorts(rows: readonly EndingCount[], minimum = MINIMUM_COHORT_SIZE): EndingCount[] {
  return rows.filter((row) => row.count >= minimum);
}

export function engagementReport(
  window: ReportingWindow,
  reading: ReadingTotals,
  novels: StartedNovels,
  endings: readonly EndingCount[],
  generatedAt: Date,
): EngagementReport {
  return {
    period_start: window.start,
    period_end: window.end,
    active_readers: reading.activeReaders,
    avg_chapters_read_per_active_reader: ratio(reading.chaptersRead, reading.activeReaders, 2),
    completion_rate: ratio(novels.finished, novels.started, 4),
    ending_distribution: omitSmallCohorts(endings),
    minimum_cohort_size: MINIMUM_COHORT_SIZE,
    generated_at: generatedAt.toISOString(),
  };
}

/** part / whole rounded to `digits` decimals; 0 when there is no whole (DECISIONS 14). */
function ratio(part: number, whole: number, digits: number): number {
  if (whole === 0) return 0;
  const scale = 10 ** digits;
  return Math.round((part / whole) * scale) / scale;
}
