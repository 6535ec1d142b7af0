import { Injectable } from '@nestjs/common';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { UnitOfWork } from '../../../shared/persistence/unit-of-work.js';
import { SubscriberClock } from '../../../shared/tenancy/subscriber-clock.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import type { ReadingActivity } from '../../analytics/index.js';
import { CatalogService, type Novel } from '../../catalog/index.js';
import { EntitlementsService } from '../../entitlements/index.js';
import { ACTIVE_NOVEL_LIMIT, startInstant, unlockedChapters, type NovelProgress } from '../domain/novel-progress.js';
import { alreadyFinished, notEntitled } from '../domain/reading-errors.js';
import { ReadingProgressRepository } from '../domain/reading-progress.repository.js';
import { ChapterUnlockScheduleService } from './chapter-unlock-schedule.service.js';
import { ReadingLifecycleHooks } from './reading-lifecycle-hooks.js';

/** One novel the subscriber has opened, with what the drip has released of it now. */
export interface ProgressEntry {
  novel: Novel;
  progress: NovelProgress;
  unlockedChapters: number;
}

export interface ReadingProgress {
  subscriberId: string;
  activeNovelCount: number;
  activeNovelLimit: number;
  entries: ProgressEntry[];
}

export interface OpenedNovel {
  entry: ProgressEntry;
  /** false when the novel was already in progress. */
  created: boolean;
}

/**
 * The reading lifecycle (DECISIONS 7) and the progress it leaves. Novels removed from
 * the catalog drop out of a subscriber's progress and no longer count against the limit:
 * a removal must not trap a subscriber at the limit with a novel it cannot remove.
 */
@Injectable()
export class ReadingProgressService {
  constructor(
    private readonly progress: ReadingProgressRepository,
    private readonly catalog: CatalogService,
    private readonly entitlements: EntitlementsService,
    private readonly hooks: ReadingLifecycleHooks,
    private readonly unlockSchedule: ChapterUnlockScheduleService,
    private readonly unitOfWork: UnitOfWork,
    private readonly clock: SubscriberClock,
  ) {}

  /**
   * Opens a novel now, the subscriber's now (or at a past `startedAt`, sandbox only). The
   * limit of unfinished novels is checked and the row written under the subscriber's lock,
   * so no burst of parallel opens can exceed it.
   */
  async open(tenant: Tenant, subscriberId: string, novelId: string, requestedStart?: Date): Promise<OpenedNovel> {
    const [novel, features] = await Promise.all([this.catalog.publishedNovel(tenant.environment, novelId), this.entitlements.features(tenant, subscriberId)]);
    if (!features.reading) throw notEntitled(subscriberId);
    return this.unitOfWork.run(async () => {
      // The subscriber's time first (its test clock held until commit), then its lock.
      const time = await this.clock.timeForWrite(tenant, subscriberId);
      const openedAt = time.now;
      const startedAt = startInstant(tenant.environment, requestedStart, openedAt);
      const entryOf = (progress: NovelProgress) => entry(novel, progress, features.earlyAccess, openedAt);
      await this.progress.lockSubscriber(tenant, subscriberId);
      const existing = await this.progress.find(tenant, subscriberId, novelId);
      if (existing?.finishedAt) throw alreadyFinished(novelId);
      if (existing) return { entry: entryOf(existing), created: false };
      const active = await this.activeNovels(tenant, subscriberId);
      if (active.length >= ACTIVE_NOVEL_LIMIT) {
        throw new DomainError(
          'active_novel_limit_reached',
          `Subscriber "${subscriberId}" already has ${ACTIVE_NOVEL_LIMIT} unfinished novels (${active.map((n) => n.id).join(', ')}): finish or remove one first.`,
        );
      }
      const progress = await this.progress.insert(tenant, subscriberId, novelId, startedAt);
      await this.unlockSchedule.startFor(tenant, {
        subscriberId,
        novelId,
        startedAt,
        totalChapters: novel.totalChapters,
        earlyAccess: features.earlyAccess,
        openedAt,
        testClockId: time.testClockId,
      });
      return { entry: entryOf(progress), created: true };
    });
  }

  /** Removes an unfinished novel and, through the lifecycle hooks, what depends on it (its playback position). */
  async remove(tenant: Tenant, subscriberId: string, novelId: string): Promise<void> {
    await this.catalog.publishedNovel(tenant.environment, novelId);
    await this.unitOfWork.run(async () => {
      await this.progress.lockSubscriber(tenant, subscriberId);
      const existing = await this.progress.find(tenant, subscriberId, novelId);
      if (!existing) throw new DomainError('not_found', `Subscriber "${subscriberId}" has not opened novel "${novelId}".`);
      if (existing.finishedAt) throw alreadyFinished(novelId);
      await this.progress.delete(tenant, subscriberId, novelId);
      await this.hooks.novelRemoved(tenant, subscriberId, novelId);
    });
  }

  /**
   * The subscriber's progress on a novel, read under the subscriber's lifecycle lock (held
   * until the caller's transaction ends): call it inside UnitOfWork.run, so that a choice
   * of ending cannot race an open or a remove of the same subscriber.
   */
  async lockedProgress(tenant: Tenant, subscriberId: string, novelId: string): Promise<NovelProgress | null> {
    await this.progress.lockSubscriber(tenant, subscriberId);
    return this.progress.find(tenant, subscriberId, novelId);
  }

  /** Records the chosen ending; the caller holds the lock of lockedProgress. */
  finish(tenant: Tenant, subscriberId: string, novelId: string, choiceId: string, finishedAt: Date): Promise<void> {
    return this.progress.finish(tenant, subscriberId, novelId, choiceId, finishedAt);
  }

  /** Every published novel the subscriber has opened, newest first: one statement whatever their number. */
  async readingProgress(tenant: Tenant, subscriberId: string): Promise<ReadingProgress> {
    const [{ progress: rows, features }, now] = await Promise.all([this.progress.listWithFeatures(tenant, subscriberId), this.clock.now(tenant, subscriberId)]);
    const novels = new Map(
      (
        await this.catalog.publishedNovels(
          tenant.environment,
          rows.map((r) => r.novelId),
        )
      ).map((n) => [n.id, n]),
    );
    const entries = rows.flatMap((row) => {
      const novel = novels.get(row.novelId);
      return novel ? [entry(novel, row, features.earlyAccess, now)] : [];
    });
    return {
      subscriberId,
      activeNovelCount: entries.filter((e) => !e.progress.finishedAt).length,
      activeNovelLimit: ACTIVE_NOVEL_LIMIT,
      entries,
    };
  }

  /**
   * Records a chapter read (analytics' activity) and moves the reader on to it: one
   * statement, in the caller's transaction if there is one.
   */
  recordChapterActivity(tenant: Tenant, activity: ReadingActivity): Promise<void> {
    return this.progress.recordChapterRead(tenant, activity);
  }

  private async activeNovels(tenant: Tenant, subscriberId: string): Promise<Novel[]> {
    return this.catalog.publishedNovels(tenant.environment, await this.progress.unfinishedNovelIds(tenant, subscriberId));
  }
}

function entry(novel: Novel, progress: NovelProgress, earlyAccess: boolean, now: Date): ProgressEntry {
  return { novel, progress, unlockedChapters: unlockedChapters(progress, novel.totalChapters, earlyAccess, now) };
}
