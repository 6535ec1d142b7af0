import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '../../../shared/persistence/unit-of-work.js';
import { SubscriberClock } from '../../../shared/tenancy/subscriber-clock.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { CatalogService, type Ending, type Novel } from '../../catalog/index.js';
import { EntitlementsService } from '../../entitlements/index.js';
import { ChapterReleaseService, notEntitled, ReadingProgressService, unlockedChapters, type NovelProgress } from '../../reading/index.js';
import { WebhookEventPublisher } from '../../webhooks/index.js';
import { decideChoice, novelNotStarted } from '../domain/ending-choice.js';

/** The endings state of contract 2: choices are gated until the last chapter is released. */
export interface EndingsState {
  novelId: string;
  available: boolean;
  chosenChoiceId: string | null;
  choices: Ending[];
}

/** Endings and the choice that finishes a novel (contract 3, DECISIONS 7). */
@Injectable()
export class EndingsService {
  constructor(
    private readonly catalog: CatalogService,
    private readonly releases: ChapterReleaseService,
    private readonly entitlements: EntitlementsService,
    private readonly reading: ReadingProgressService,
    private readonly events: WebhookEventPublisher,
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: SubscriberClock,
  ) {}

  async state(tenant: Tenant, novelId: string, subscriberId: string): Promise<EndingsState> {
    const [novel, { progress, features, now }] = await Promise.all([
      this.catalog.publishedNovel(tenant.environment, novelId),
      this.releases.readerState(tenant, subscriberId, novelId),
    ]);
    const available = progress !== null && lastChapterReleased(progress, novel, features.earlyAccess, now);
    return {
      novelId,
      available,
      chosenChoiceId: progress?.chosenChoiceId ?? null,
      choices: available ? await this.catalog.endings(tenant.environment, novel) : [],
    };
  }

  /**
   * Chooses the ending and finishes the novel. finished_at and the novel.finished event
   * are written in one transaction: the event exists if and only if the novel finished.
   * Repeating the same choice answers the same state and emits nothing. Only a subscriber
   * with an active reading entitlement may choose: a canceled one concludes nothing.
   */
  async choose(tenant: Tenant, novelId: string, subscriberId: string, choiceId: string): Promise<EndingsState> {
    const novel = await this.catalog.publishedNovel(tenant.environment, novelId);
    const [endings, { reading, earlyAccess }] = await Promise.all([
      this.catalog.endings(tenant.environment, novel),
      this.entitlements.features(tenant, subscriberId),
    ]);
    if (!reading) throw notEntitled(subscriberId);
    await this.unitOfWork.run(async () => {
      // The subscriber's time first (its test clock held until commit), then its lock.
      const { now } = await this.clock.timeForWrite(tenant, subscriberId);
      const progress = await this.reading.lockedProgress(tenant, subscriberId, novelId);
      if (!progress) throw novelNotStarted(subscriberId, novelId);
      const decision = decideChoice(
        {
          novelId,
          subscriberId,
          chosenChoiceId: progress.chosenChoiceId,
          finished: progress.finishedAt !== null,
          lastChapterReleased: lastChapterReleased(progress, novel, earlyAccess, now),
          endingIds: endings.map((e) => e.choiceId),
        },
        choiceId,
      );
      if (decision === 'repeat') return;
      await this.reading.finish(tenant, subscriberId, novelId, choiceId, now);
      await this.events.novelFinished(tenant, { subscriber_id: subscriberId, novel_id: novelId, choice_id: choiceId }, now);
    });
    return { novelId, available: true, chosenChoiceId: choiceId, choices: endings };
  }
}

const lastChapterReleased = (progress: NovelProgress, novel: Novel, earlyAccess: boolean, now: Date) =>
  unlockedChapters(progress, novel.totalChapters, earlyAccess, now) >= novel.totalChapters;
