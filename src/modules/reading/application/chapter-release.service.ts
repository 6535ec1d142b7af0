import { Injectable } from '@nestjs/common';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { EntitlementsService } from '../../entitlements/index.js';
import { chapterRelease, type ChapterRelease, type NovelProgress } from '../domain/novel-progress.js';
import { ReadingProgressRepository } from '../domain/reading-progress.repository.js';

/** What the drip needs to know about a subscriber and a novel, read once per request. */
export interface ReaderState {
  progress: NovelProgress | null;
  earlyAccess: boolean;
}

/**
 * Whether chapters are released for a subscriber, by the drip over the subscriber's start
 * of the novel and current plan (DECISIONS 8). Nothing is stored: each call recomputes.
 */
@Injectable()
export class ChapterReleaseService {
  constructor(
    private readonly progress: ReadingProgressRepository,
    private readonly entitlements: EntitlementsService,
  ) {}

  /**
   * Whether chapter `chapterNumber` of `novelId` is released for the subscriber now.
   * The caller has checked that the novel is published and has the chapter. Pass
   * `earlyAccess` when the subscriber's features are at hand or on their way (a promise:
   * the progress is then read while they arrive), to save a query.
   */
  async chapterRelease(
    tenant: Tenant,
    subscriberId: string,
    novelId: string,
    chapterNumber: number,
    known: { earlyAccess?: boolean | Promise<boolean> } = {},
  ): Promise<ChapterRelease> {
    const state = await this.readerState(tenant, subscriberId, novelId, known.earlyAccess);
    return chapterRelease(state.progress, chapterNumber, state.earlyAccess, new Date());
  }

  /** The subscriber's progress in the novel and early access, read in parallel. */
  async readerState(tenant: Tenant, subscriberId: string, novelId: string, earlyAccess?: boolean | Promise<boolean>): Promise<ReaderState> {
    const [progress, early] = await Promise.all([
      this.progress.find(tenant, subscriberId, novelId),
      earlyAccess ?? this.entitlements.features(tenant, subscriberId).then((features) => features.earlyAccess),
    ]);
    return { progress, earlyAccess: early };
  }
}
