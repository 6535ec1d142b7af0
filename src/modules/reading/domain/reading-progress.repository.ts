import type { Tenant } from '../../../shared/tenancy/tenant.js';
import type { SubscriberFeatures } from '../../entitlements/index.js';
import type { ReadingActivity } from '../../analytics/index.js';
import type { NovelProgress } from './novel-progress.js';

/** What the drip and the access checks need to know about a subscriber and a novel, read once per request. */
export interface Reader {
  progress: NovelProgress | null;
  features: SubscriberFeatures;
}

/** A reader with the subscriber's "now" (its test clock's, or the real time): what release checks need. */
export interface ReaderNow extends Reader {
  now: Date;
}

/** Subscribers' reading progress, keyed by (partner, environment, subscriber, novel). */
export abstract class ReadingProgressRepository {
  /**
   * Serialises the subscriber's lifecycle changes (open, remove, finish) until the
   * transaction ends: the limit of unfinished novels is checked and kept under it.
   */
  abstract lockSubscriber(tenant: Tenant, subscriberId: string): Promise<void>;
  abstract find(tenant: Tenant, subscriberId: string, novelId: string): Promise<NovelProgress | null>;
  /**
   * The progress in the novel and the subscriber's features, in one statement: what the
   * drip and the access checks need on every subscriber read.
   */
  abstract findWithFeatures(tenant: Tenant, subscriberId: string, novelId: string): Promise<Reader>;
  /** Every novel the subscriber has opened, newest first, and its features: one statement. */
  abstract listWithFeatures(tenant: Tenant, subscriberId: string): Promise<{ progress: NovelProgress[]; features: SubscriberFeatures }>;
  abstract unfinishedNovelIds(tenant: Tenant, subscriberId: string): Promise<string[]>;
  abstract insert(tenant: Tenant, subscriberId: string, novelId: string, startedAt: Date): Promise<NovelProgress>;
  abstract delete(tenant: Tenant, subscriberId: string, novelId: string): Promise<void>;
  abstract finish(tenant: Tenant, subscriberId: string, novelId: string, choiceId: string, finishedAt: Date): Promise<void>;
  /**
   * Records the reading of a chapter (analytics' activity row) and moves current_chapter
   * forward to it, never back, in one statement; the chapter's release was checked before.
   */
  abstract recordChapterRead(tenant: Tenant, activity: ReadingActivity): Promise<void>;
}
