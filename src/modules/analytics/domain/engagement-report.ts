import type { EndingLabel, EndingLabels } from '../../catalog/index.js';
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

/** How many readers chose one ending of one novel in a period, as counted, before it is labelled. */
export interface ChosenEnding {
  novelId: string;
  choiceId: string;
  count: number;
}

/** How many readers chose one ending of one novel in a period, with the ending's label. */
export interface EndingCount extends ChosenEnding {
  label: string;
}

/** The engagement report of contract section 2: aggregates only, never a subscriber. */
export interface EngagementReport {
  periodStart: string;
  periodEnd: string;
  activeReaders: number;
  avgChaptersReadPerActiveReader: number;
  completionRate: number;
  endingDistribution: EndingCount[];
  minimumCohortSize: number;
  generatedAt: Date;
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

/**
 * Labels counted endings from the catalog and puts them in the catalog's order: novel id,
 * then sort order, then choice id, as the database compared them when the catalog was
 * loaded (EndingLabel.position). `rows` may come in any order: PostgreSQL does not sort
 * them, since the rows past the minimum grow with the audience (ADR 0156). An ending the
 * catalog no longer holds is labelled by its choice id and placed after its novel's known
 * ones, and a novel the catalog no longer holds after every known novel; among themselves
 * these compare by UTF-16 code unit, an order that needs no database.
 */
export function labelEndings(rows: readonly ChosenEnding[], labels: EndingLabels): EndingCount[] {
  const placed = rows.map((row) => {
    const novel = labels.get(row.novelId);
    const known = novel?.get(row.choiceId);
    const ending: EndingCount = { novelId: row.novelId, choiceId: row.choiceId, label: known?.label ?? row.choiceId, count: row.count };
    return { ending, place: known?.position ?? (novel ? lastPosition(novel) + 0.5 : Infinity) };
  });
  placed.sort((a, b) => compare(a.place, b.place) || compare(a.ending.novelId, b.ending.novelId) || compare(a.ending.choiceId, b.ending.choiceId));
  return placed.map((row) => row.ending);
}

const lastPosition = (endings: ReadonlyMap<string, EndingLabel>) => Math.max(...[...endings.values()].map((ending) => ending.position));

/** Numbers, Infinity too (where a subtraction would answer NaN), and strings by UTF-16 code unit. */
const compare = <T extends number | string>(a: T, b: T) => (a < b ? -1 : a > b ? 1 : 0);

export function engagementReport(
  window: ReportingWindow,
  reading: ReadingTotals,
  novels: StartedNovels,
  endings: readonly EndingCount[],
  generatedAt: Date,
): EngagementReport {
  return {
    periodStart: window.start,
    periodEnd: window.end,
    activeReaders: reading.activeReaders,
    avgChaptersReadPerActiveReader: ratio(reading.chaptersRead, reading.activeReaders, 2),
    completionRate: ratio(novels.finished, novels.started, 4),
    endingDistribution: omitSmallCohorts(endings),
    minimumCohortSize: MINIMUM_COHORT_SIZE,
    generatedAt,
  };
}

/** part / whole rounded to `digits` decimals; 0 when there is no whole (DECISIONS 14). */
function ratio(part: number, whole: number, digits: number): number {
  if (whole === 0) return 0;
  const scale = 10 ** digits;
  return Math.round((part / whole) * scale) / scale;
}
