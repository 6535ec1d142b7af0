/**
 * The drip rule of DECISIONS 8, written the way a hand-tuned server would: São Paulo
 * offsets from one cached Intl formatter, memoised per UTC hour (São Paulo changed its
 * offset only on whole hours), and 06:00 of each release day memoised per day. Same
 * answers as src/modules/drip (the bench compares both servers' answers to its probe request), without luxon.
 */
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const EARLY_ACCESS_MS = DAY_MS;

const formatter = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/Sao_Paulo',
  hourCycle: 'h23',
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
});

const offsetByHour = new Map<number, number>();

/** Minutes to add to UTC to get São Paulo wall time at `ms`. */
function offsetMinutes(ms: number): number {
  const hour = Math.floor(ms / HOUR_MS);
  let offset = offsetByHour.get(hour);
  if (offset === undefined) {
    const parts = formatter.formatToParts(new Date(hour * HOUR_MS));
    const value = (type: string) => Number(parts.find((p) => p.type === type)!.value);
    const wall = Date.UTC(value('year'), value('month') - 1, value('day'), value('hour'), value('minute'));
    offset = Math.round((wall - hour * HOUR_MS) / 60_000);
    if (offsetByHour.size > 100_000) offsetByHour.clear();
    offsetByHour.set(hour, offset);
  }
  return offset;
}

/** The São Paulo release day (days since 1970-01-01) of an instant: 06:00 SP on d ≤ x < 06:00 SP on d + 1. */
export function releaseDay(ms: number): number {
  const wall = ms + offsetMinutes(ms) * 60_000;
  const day = Math.floor(wall / DAY_MS);
  return ms >= releaseInstantOfDay(day) ? day : day - 1;
}

const releaseInstants = new Map<number, number>();

/** 06:00 São Paulo on a day number, as epoch milliseconds. */
function releaseInstantOfDay(day: number): number {
  let instant = releaseInstants.get(day);
  if (instant === undefined) {
    const wallSix = day * DAY_MS + 6 * HOUR_MS;
    instant = wallSix - offsetMinutes(wallSix + 3 * HOUR_MS) * 60_000;
    instant = wallSix - offsetMinutes(instant) * 60_000;
    if (releaseInstants.size > 100_000) releaseInstants.clear();
    releaseInstants.set(day, instant);
  }
  return instant;
}

export function chapterReleaseAt(startedAt: number, earlyAccess: boolean, chapterNumber: number): number {
  if (chapterNumber <= 1) return startedAt;
  const scheduled = releaseInstantOfDay(releaseDay(startedAt) + chapterNumber - 1) - (earlyAccess ? EARLY_ACCESS_MS : 0);
  return Math.max(scheduled, startedAt);
}

export function releasedChapterCount(startedAt: number, earlyAccess: boolean, totalChapters: number, at: number): number {
  const elapsed = releaseDay(at + (earlyAccess ? EARLY_ACCESS_MS : 0)) - releaseDay(startedAt);
  return Math.min(totalChapters, 1 + Math.max(0, elapsed));
}

export interface Progress {
  novelId: string;
  startedAt: Date;
  currentChapter: number;
  finishedAt: Date | null;
  chosenChoiceId: string | null;
}

export interface Release {
  released: boolean;
  unlocksAt: number | null;
  started: boolean;
}

export function chapterRelease(progress: Progress | null, chapterNumber: number, earlyAccess: boolean, at: number): Release {
  if (!progress) return { released: false, unlocksAt: null, started: false };
  if (progress.finishedAt) return { released: true, unlocksAt: null, started: true };
  const releaseAt = chapterReleaseAt(progress.startedAt.getTime(), earlyAccess, chapterNumber);
  const released = releaseAt <= at;
  return { released, unlocksAt: released ? null : releaseAt, started: true };
}

/** The latest start that releases chapter n by `at` (src/modules/drip releaseCutoff): released ⟺ startedAt < cutoff. */
export function releaseCutoff(chapterNumber: number, earlyAccess: boolean, at: number): number {
  if (chapterNumber <= 1) return at + 1;
  const lastStartDay = releaseDay(at + (earlyAccess ? EARLY_ACCESS_MS : 0)) - (chapterNumber - 1);
  return Math.min(releaseInstantOfDay(lastStartDay + 1), at + 1);
}
