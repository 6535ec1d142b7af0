import { Injectable } from '@nestjs/common';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import type { SubscriberFeatures } from '../../entitlements/index.js';
import { chapterRelease, type ChapterRelease, type NovelProgress } from '../domain/novel-progress.js';
import { ReadingProgressRepository } from '../domain/reading-progress.repository.js';

/** What the drip and the access checks need to know about a subscriber and a novel, read once per request. */
export interface ReaderState {
  progress: NovelProgress | null;
  features: SubscriberFeatures;
}

/**
 * Whether chapters are released for a subscriber, by the drip over the subscriber's start
 * of the novel and current plan (DECISIONS 8). Nothing is stored: each call recomputes.
 */
@Injectable()
export class ChapterReleaseService {
  constructor(private readonly progress: ReadingProgressRepository) {}

  releaseOf(reader: ReaderState, chapterNumber: number, at = new Date()): ChapterRelease {
    return chapterRelease(reader.progress, chapterNumber, reader.features.earlyAccess, at);
  }

  /** The subscriber's progress in the novel and its features: one statement. */
  readerState(tenant: Tenant, subscriberId: string, novelId: string): Promise<ReaderState> {
    return this.progress.findWithFeatures(tenant, subscriberId, novelId);
  }
}
