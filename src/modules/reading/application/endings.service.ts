import { Injectable } from '@nestjs/common';
import { ApiError, invalidRequest } from '../../../shared/errors/api-error.js';
import { UnitOfWork } from '../../../shared/persistence/unit-of-work.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { CatalogService, type Ending, type Novel } from '../../catalog/index.js';
import { EntitlementsService } from '../../entitlements/index.js';
import { WebhookEventPublisher } from '../../webhooks/index.js';
import { unlockedChapters, type NovelProgress } from '../domain/novel-progress.js';
import { ReadingProgressRepository } from '../domain/reading-progress.repository.js';
import { ChapterReleaseService } from './chapter-release.service.js';

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
    private readonly progress: ReadingProgressRepository,
    private readonly events: WebhookEventPublisher,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  async state(tenant: Tenant, novelId: string, subscriberId: string): Promise<EndingsState> {
    const [novel, { progress, earlyAccess }] = await Promise.all([
      this.catalog.publishedNovel(tenant.environment, novelId),
      this.releases.readerState(tenant, subscriberId, novelId),
    ]);
    const available = progress !== null && lastChapterReleased(progress, novel, earlyAccess);
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
   * Repeating the same choice answers the same state and emits nothing.
   */
  async choose(tenant: Tenant, novelId: string, subscriberId: string, choiceId: string): Promise<EndingsState> {
    const novel = await this.catalog.publishedNovel(tenant.environment, novelId);
    const [endings, { earlyAccess }] = await Promise.all([this.catalog.endings(tenant.environment, novel), this.entitlements.features(tenant, subscriberId)]);
    const chosen = await this.unitOfWork.run(async () => {
      await this.progress.lockSubscriber(tenant, subscriberId);
      const progress = await this.progress.find(tenant, subscriberId, novelId);
      if (!progress) throw new ApiError('novel_not_started', `Subscriber "${subscriberId}" has not opened novel "${novelId}".`);
      if (progress.chosenChoiceId === choiceId) return choiceId;
      if (!progress.finishedAt && !lastChapterReleased(progress, novel, earlyAccess)) {
        throw new ApiError('endings_not_available', `The endings of novel "${novelId}" are available once its last chapter is released for the subscriber.`);
      }
      if (!endings.some((e) => e.choiceId === choiceId)) {
        throw invalidRequest(`choice_id "${choiceId}" is not an ending of novel "${novelId}" (GET /novels/${novelId}/choices lists them).`);
      }
      if (progress.finishedAt) {
        throw new ApiError('ending_already_chosen', `Subscriber "${subscriberId}" already chose the ending "${progress.chosenChoiceId}" of novel "${novelId}".`);
      }
      const finishedAt = new Date();
      await this.progress.finish(tenant, subscriberId, novelId, choiceId, finishedAt);
      await this.events.novelFinished(tenant, { subscriber_id: subscriberId, novel_id: novelId, choice_id: choiceId }, finishedAt);
      return choiceId;
    });
    return { novelId, available: true, chosenChoiceId: chosen, choices: endings };
  }
}

const lastChapterReleased = (progress: NovelProgress, novel: Novel, earlyAccess: boolean) =>
  unlockedChapters(progress, novel.totalChapters, earlyAccess, new Date()) >= novel.totalChapters;
