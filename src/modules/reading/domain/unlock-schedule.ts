import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { chapterReleaseAt, releasedChapterCount, type DripInput } from '../../drip/index.js';
import type { EntitlementGrant } from '../../entitlements/index.js';

/**
 * Where a reader's `chapter.unlocked` notifications stand (DECISIONS 23): the next chapter
 * to announce and when the drip releases it. Only this schedule is stored; what the
 * endpoints report is still computed from the drip rule at each read.
 */
export interface UnlockCursor {
  nextChapter: number;
  nextUnlockAt: Date;
}

/** One reader's schedule row: a novel opened by a subscriber, with its cursor. */
export interface ScheduledUnlock extends UnlockCursor {
  tenant: Tenant;
  subscriberId: string;
  novelId: string;
  startedAt: Date;
  /** Instants at or before this emit nothing: the novel was opened then (no replay of a backdated start). */
  notBefore: Date;
  /** The sandbox test clock whose advances announce the row; null: the live job announces it (DECISIONS 28). */
  testClockId: string | null;
}

/**
 * The first chapter released strictly after `notBefore`, or null when every chapter is
 * released by then. Chapter 1 (and, with early access, a chapter 2 released at the start)
 * is released on opening, so it is never announced.
 */
export function firstUnlockAfter(drip: DripInput, totalChapters: number, notBefore: Date): UnlockCursor | null {
  const nextChapter = releasedChapterCount(drip, totalChapters, notBefore) + 1;
  if (nextChapter > totalChapters) return null;
  return { nextChapter, nextUnlockAt: chapterReleaseAt(drip, nextChapter) };
}

/** What the job does with one due row, given the reader's state now. */
export type UnlockStep =
  /** The novel was finished, removed, reopened or dropped from the catalog: stop announcing. */
  | { kind: 'stop' }
  /** The release moved later (the plan lost early access): wait for it. */
  | { kind: 'wait'; nextUnlockAt: Date }
  /** Announce `chapter` (unless its instant is before `notBefore`), then move on to `next` (null: it was the last). */
  | { kind: 'announce'; chapter: number; releasedAt: Date; emit: boolean; next: UnlockCursor | null };

export interface ScheduledReader {
  /** The reading as it stands; null when the novel is no longer opened. */
  progress: { startedAt: Date; finishedAt: Date | null } | null;
  /** Chapters of the novel now; null when the novel left the catalog. */
  totalChapters: number | null;
  earlyAccess: boolean;
}

/** A reader's state as stored: its reading, its novel, and the entitlements its features come from. */
export type ReaderRows = Omit<ScheduledReader, 'earlyAccess'> & { grants: EntitlementGrant[] };

export function nextUnlockStep(row: ScheduledUnlock, reader: ScheduledReader, now: Date): UnlockStep {
  const { progress, totalChapters } = reader;
  const sameReading = progress && !progress.finishedAt && progress.startedAt.getTime() === row.startedAt.getTime();
  if (!sameReading || totalChapters === null || row.nextChapter > totalChapters) return { kind: 'stop' };
  const drip = { startedAt: row.startedAt, earlyAccess: reader.earlyAccess };
  const releasedAt = chapterReleaseAt(drip, row.nextChapter);
  if (releasedAt.getTime() > now.getTime()) return { kind: 'wait', nextUnlockAt: releasedAt };
  const following = row.nextChapter + 1;
  const next = following > totalChapters ? null : { nextChapter: following, nextUnlockAt: chapterReleaseAt(drip, following) };
  return { kind: 'announce', chapter: row.nextChapter, releasedAt, emit: releasedAt.getTime() > row.notBefore.getTime(), next };
}

/** The schedule's storage; rows are locked while the job works on them. */
export abstract class UnlockScheduleRepository {
  /** Starts (or restarts, on reopening) a reader's schedule; `cursor` null clears it. */
  abstract upsert(row: Omit<ScheduledUnlock, keyof UnlockCursor>, cursor: UnlockCursor | null): Promise<void>;
  /**
   * Rows due at `now`, locked. `testClockId` null: rows on real time (the job's), live ones
   * before any sandbox one, each partner with due rows taking an equal share of about
   * `limit`, its earliest; rows another replica holds are skipped. Else that clock's rows,
   * up to `limit`, earliest first.
   */
  abstract claimDue(now: Date, limit: number, testClockId: string | null): Promise<ScheduledUnlock[]>;
  /** The earliest instant a row of the test clock waits for, if any. */
  abstract earliestOnClock(testClockId: string): Promise<Date | null>;
  /** The reader state of each claimed row, in the same order, read in one statement. */
  abstract readerStates(rows: ScheduledUnlock[]): Promise<ReaderRows[]>;
  abstract moveTo(row: ScheduledUnlock, cursor: UnlockCursor | null): Promise<void>;
  /**
   * The subscriber's rows, to move after a plan change: locked until the caller's
   * transaction ends, so that a job run holding one finishes moving it first.
   */
  abstract listForSubscriber(tenant: Tenant, subscriberId: string): Promise<ScheduledUnlock[]>;
}
