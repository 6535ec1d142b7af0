import type { Tenant } from '../../../shared/tenancy/tenant.js';
import type { SubscriberFeatures } from '../../entitlements/index.js';
import type { NovelProgress } from './novel-progress.js';

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
  abstract findWithFeatures(tenant: Tenant, subscriberId: string, novelId: string): Promise<{ progress: NovelProgress | null; features: SubscriberFeatures }>;
  /** Every novel the subscriber has opened, newest first, and its features: one statement. */
  abstract listWithFeatures(tenant: Tenant, subscriberId: string): Promise<{ progress: NovelProgress[]; features: SubscriberFeatures }>;
  abstract unfinishedNovelIds(tenant: Tenant, subscriberId: string): Promise<string[]>;
  abstract insert(tenant: Tenant, subscriberId: string, novelId: string, startedAt: Date): Promise<NovelProgress>;
  abstract delete(tenant: Tenant, subscriberId: string, novelId: string): Promise<void>;
  abstract finish(tenant: Tenant, subscriberId: string, novelId: string, choiceId: string, finishedAt: Date): Promise<void>;
  /** Moves current_chapter forward to chapterNumber, never backwards; nothing when the novel is not opened. */
  abstract advanceCurrentChapter(tenant: Tenant, subscriberId: string, novelId: string, chapterNumber: number): Promise<void>;
}
