import { DateTime } from 'luxon';
import { bounded } from '../../../shared/memo.js';

/**
 * The drip (DECISIONS 8): one chapter a day per subscriber, released at 06:00 in
 * America/Sao_Paulo, counted from the subscriber's start of the novel; early access gets
 * each release 24 hours earlier. Pure functions of instants: nothing is stored, every read
 * recomputes. Offsets come from the tz database (luxon over Intl), so historic instants
 * use historic offsets (São Paulo kept daylight saving until 2019).
 */
export const DRIP_TIME_ZONE = 'America/Sao_Paulo';
export const RELEASE_HOUR = 6;
export const EARLY_ACCESS_MS = 24 * 60 * 60 * 1000;

const DAY_MS = 24 * 60 * 60 * 1000;

export interface DripInput {
  /** The subscriber's `started_at` for the novel. */
  startedAt: Date;
  /** Whether the subscriber has early access now (the plan is read at each request). */
  earlyAccess: boolean;
}

/**
 * The release day of an instant, as a day number (days since 1970-01-01 of the São Paulo
 * calendar date d with 06:00 SP on d ≤ x < 06:00 SP on d + 1). Day numbers subtract
 * as calendar days whatever the offsets in between.
 *
 * Found by bracketing the instant between two release instants (memoised per day), so
 * the tz database is read once per day number, not once per call: the chapter listing
 * asks for dozens of release instants per request.
 */
export function releaseDay(instant: Date): number {
  const ms = instant.getTime();
  // 06:00 SP falls between 08:00 and about 09:07 UTC in every offset São Paulo ever had, so
  // this guess is the answer or next to it.
  let day = Math.floor((ms - 9 * 60 * 60 * 1000) / DAY_MS);
  while (ms < releaseInstantMs(day)) day -= 1;
  while (ms >= releaseInstantMs(day + 1)) day += 1;
  return day;
}

/** 06:00 São Paulo on the calendar date of a day number. 06:00 always exists: SP switched at midnight. */
export function releaseInstantOfDay(day: number): Date {
  return new Date(releaseInstantMs(day));
}

/**
 * Release instants by day number: a pure function of the day (the time zone's rules are
 * fixed), kept because luxon's zone arithmetic costs more than the rest of the rule. A few
 * thousand days cover every live reader.
 */
const releaseInstants = bounded('drip.release-instants', 'clear', 50_000, (day: number) => {
  const date = DateTime.fromMillis(day * DAY_MS, { zone: 'utc' });
  return DateTime.fromObject({ year: date.year, month: date.month, day: date.day, hour: RELEASE_HOUR }, { zone: DRIP_TIME_ZONE }).toMillis();
});

const releaseInstantMs = (day: number): number => releaseInstants.get(day);

/** When chapter `chapterNumber` (1-indexed) is released for the subscriber. */
export function chapterReleaseAt(input: DripInput, chapterNumber: number): Date {
  return new Date(dripSchedule(input)(chapterNumber));
}

/**
 * One subscriber's release instants (epoch ms) by chapter number: chapterReleaseAt with the
 * start's release day found once, for a caller that asks for every chapter of a novel.
 */
export function dripSchedule({ startedAt, earlyAccess }: DripInput): (chapterNumber: number) => number {
  const start = startedAt.getTime();
  const startDay = releaseDay(startedAt);
  const shift = earlyShift(earlyAccess);
  return (chapterNumber) => (chapterNumber <= 1 ? start : Math.max(releaseInstantMs(startDay + chapterNumber - 1) - shift, start));
}

/** How many chapters of a novel of `totalChapters` are released at `at`. */
export function releasedChapterCount({ startedAt, earlyAccess }: DripInput, totalChapters: number, at: Date): number {
  const elapsedDays = releaseDay(new Date(at.getTime() + earlyShift(earlyAccess))) - releaseDay(startedAt);
  return Math.min(totalChapters, 1 + Math.max(0, elapsedDays));
}

/**
 * The latest start that releases chapter `chapterNumber` by `at`: the chapter is released
 * exactly when `startedAt` is before this instant (chapterReleaseAt ≤ at ⟺ startedAt <
 * releaseCutoff). It turns the drip into a comparison with the stored `started_at`, so a
 * statement can test it while it writes, without reading the start first.
 */
export function releaseCutoff(chapterNumber: number, earlyAccess: boolean, at: Date): Date {
  // Instants carry milliseconds: "not after `at`" is "before the next millisecond".
  const notAfterAt = at.getTime() + 1;
  if (chapterNumber <= 1) return new Date(notAfterAt);
  const lastStartDay = releaseDay(new Date(at.getTime() + earlyShift(earlyAccess))) - (chapterNumber - 1);
  return new Date(Math.min(releaseInstantMs(lastStartDay + 1), notAfterAt));
}

const earlyShift = (earlyAccess: boolean) => (earlyAccess ? EARLY_ACCESS_MS : 0);
