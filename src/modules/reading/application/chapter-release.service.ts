import { Injectable } from '@nestjs/common';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { chapterRelease, type ChapterRelease } from '../domain/novel-progress.js';
import { ReadingProgressRepository, type Reader } from '../domain/reading-progress.repository.js';

/**
 * Whether chapters are released for a subscriber, by the drip over the subscriber's start
 * of the novel and current plan (DECISIONS 8). Nothing is stored: each call recomputes.
 */
@Injectable()
export class ChapterReleaseService {
  constructor(private readonly progress: ReadingProgressRepository) {}

  releaseOf(reader: Reader, chapterNumber: number, at = new Date()): ChapterRelease {
    return chapterRelease(reader.progress, chapterNumber, reader.features.earlyAccess, at);
  }

  /** The subscriber's progress in the novel and its features: one statement. */
  readerState(tenant: Tenant, subscriberId: string, novelId: string): Promise<Reader> {
    return this.progress.findWithFeatures(tenant, subscriberId, novelId);
  }
}
