import { Injectable } from '@nestjs/common';
import { SubscriberClock } from '../../../shared/tenancy/subscriber-clock.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { chapterRelease, type ChapterRelease } from '../domain/novel-progress.js';
import { ReadingProgressRepository, type Reader, type ReaderNow } from '../domain/reading-progress.repository.js';

/**
 * Whether chapters are released for a subscriber, by the drip over the subscriber's start
 * of the novel and current plan (DECISIONS 8). Nothing is stored: each call recomputes.
 */
@Injectable()
export class ChapterReleaseService {
  constructor(
    private readonly progress: ReadingProgressRepository,
    private readonly clock: SubscriberClock,
  ) {}

  releaseOf(reader: Reader, chapterNumber: number, at: Date): ChapterRelease {
    return chapterRelease(reader.progress, chapterNumber, reader.features.earlyAccess, at);
  }

  /** The subscriber's progress in the novel and its features (one statement), at the subscriber's now. */
  async readerState(tenant: Tenant, subscriberId: string, novelId: string): Promise<ReaderNow> {
    const [reader, now] = await Promise.all([this.progress.findWithFeatures(tenant, subscriberId, novelId), this.clock.now(tenant, subscriberId)]);
    return { ...reader, now };
  }
}
