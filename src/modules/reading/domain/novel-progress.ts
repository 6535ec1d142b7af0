import { invalidRequest } from '../../../shared/errors/domain-error.js';
import type { Environment } from '../../../shared/tenancy/tenant.js';
import { dripSchedule, releaseCutoff, releasedChapterCount } from '../../drip/index.js';

/** A subscriber may hold at most this many unfinished novels (contract 3). */
export const ACTIVE_NOVEL_LIMIT = 3;

/** A subscriber's reading of one novel, from opening it until the ending is chosen. */
export interface NovelProgress {
  novelId: string;
  startedAt: Date;
  currentChapter: number;
  finishedAt: Date | null;
  chosenChoiceId: string | null;
}

/** Whether a chapter is released for a subscriber now (the drip, DECISIONS 8). */
export interface ChapterRelease {
  released: boolean;
  /** When a blocked chapter will be released; null when released or not started. */
  unlocksAt: Date | null;
  /** Whether the subscriber has opened the novel. */
  started: boolean;
}

export type ChapterStatus = 'unlocked' | 'locked' | 'not_started';

/**
 * How many chapters are released. A finished novel keeps all of them: its reader reached
 * the last one, and losing early access afterwards must not lock it again.
 */
export function unlockedChapters(progress: NovelProgress, totalChapters: number, earlyAccess: boolean, at: Date): number {
  if (progress.finishedAt) return totalChapters;
  return releasedChapterCount({ startedAt: progress.startedAt, earlyAccess }, totalChapters, at);
}

export function chapterRelease(progress: NovelProgress | null, chapterNumber: number, earlyAccess: boolean, at: Date): ChapterRelease {
  return chapterReleases(progress, earlyAccess, at)(chapterNumber);
}

const NOT_STARTED: ChapterRelease = Object.freeze({ released: false, unlocksAt: null, started: false });
const RELEASED: ChapterRelease = Object.freeze({ released: true, unlocksAt: null, started: true });

/** chapterRelease of every chapter of one reading at one instant, the drip schedule found once. */
export function chapterReleases(progress: NovelProgress | null, earlyAccess: boolean, at: Date): (chapterNumber: number) => ChapterRelease {
  if (!progress) return () => NOT_STARTED;
  if (progress.finishedAt) return () => RELEASED;
  const releaseAt = dripSchedule({ startedAt: progress.startedAt, earlyAccess });
  const now = at.getTime();
  return (chapterNumber) => {
    const ms = releaseAt(chapterNumber);
    return ms <= now ? RELEASED : { released: false, unlocksAt: new Date(ms), started: true };
  };
}

/**
 * Chapter `chapterNumber`'s release at an instant as a condition on the stored progress, for
 * a statement that writes only when it holds: released when the novel is finished, or when
 * it was started before the cutoff of the reader's plan (releaseCutoff, the drip's own).
 * Holds exactly when chapterRelease says released.
 */
export interface ReleaseCondition {
  startedBefore: { standard: Date; earlyAccess: Date };
}

export function releaseCondition(chapterNumber: number, at: Date): ReleaseCondition {
  return { startedBefore: { standard: releaseCutoff(chapterNumber, false, at), earlyAccess: releaseCutoff(chapterNumber, true, at) } };
}

export function chapterStatus(release: ChapterRelease): ChapterStatus {
  if (!release.started) return 'not_started';
  return release.released ? 'unlocked' : 'locked';
}

/**
 * When a novel is opened: now, or on the sandbox a past instant the partner chose, so that
 * the drip can be tested without waiting days (DECISIONS 17).
 */
export function startInstant(environment: Environment, requested: Date | undefined, now: Date): Date {
  if (!requested) return now;
  if (environment !== 'sandbox') {
    throw invalidRequest('started_at is accepted only on the sandbox (/sandbox/v1): live novels start when they are opened.');
  }
  if (requested.getTime() > now.getTime()) throw invalidRequest('started_at must be a past instant.');
  return requested;
}
