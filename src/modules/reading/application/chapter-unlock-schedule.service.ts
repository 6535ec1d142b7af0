import { Injectable, type OnModuleInit } from '@nestjs/common';
import { SubscriberClock } from '../../../shared/tenancy/subscriber-clock.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { chapterReleaseAt } from '../../drip/index.js';
import { EntitlementsService } from '../../entitlements/index.js';
import { firstUnlockAfter, UnlockScheduleRepository } from '../domain/unlock-schedule.js';
import { ChapterUnlockJob } from './chapter-unlock.job.js';

export interface OpenedReading {
  subscriberId: string;
  novelId: string;
  startedAt: Date;
  totalChapters: number;
  earlyAccess: boolean;
  /** When the novel was opened: instants before it are never announced (a backdated sandbox start replays nothing). */
  openedAt: Date;
  /** The subscriber's test clock (sandbox), whose advances announce the novel's chapters; null: the live job. */
  testClockId: string | null;
}

/**
 * Keeps each reader's next `chapter.unlocked` instant stored and indexed (DECISIONS 23): set
 * when a novel is opened, moved when the subscriber's plan changes. Finishing and removal
 * need no bookkeeping: the job finds them when the row comes due and drops it.
 */
@Injectable()
export class ChapterUnlockScheduleService implements OnModuleInit {
  constructor(
    private readonly schedule: UnlockScheduleRepository,
    private readonly entitlements: EntitlementsService,
    private readonly unlocks: ChapterUnlockJob,
    private readonly clock: SubscriberClock,
  ) {}

  onModuleInit(): void {
    this.entitlements.onFeaturesChanged((tenant, subscriberId) => this.replan(tenant, subscriberId));
  }

  /** Call in the transaction that opens the novel. */
  startFor(tenant: Tenant, reading: OpenedReading): Promise<void> {
    const drip = { startedAt: reading.startedAt, earlyAccess: reading.earlyAccess };
    return this.schedule.upsert(
      {
        tenant,
        subscriberId: reading.subscriberId,
        novelId: reading.novelId,
        startedAt: reading.startedAt,
        notBefore: reading.openedAt,
        testClockId: reading.testClockId,
      },
      firstUnlockAfter(drip, reading.totalChapters, reading.openedAt),
    );
  }

  /**
   * Early access gained or lost moves every pending instant of the subscriber by a day. On a
   * test clock, an instant moved into the clock's past is announced at once, as the live job
   * would at its next run: the clock's time does not pass by itself.
   */
  private async replan(tenant: Tenant, subscriberId: string): Promise<void> {
    const rows = await this.schedule.listForSubscriber(tenant, subscriberId);
    if (rows.length === 0) return;
    const { earlyAccess } = await this.entitlements.features(tenant, subscriberId);
    for (const row of rows) {
      const nextUnlockAt = chapterReleaseAt({ startedAt: row.startedAt, earlyAccess }, row.nextChapter);
      if (nextUnlockAt.getTime() !== row.nextUnlockAt.getTime()) await this.schedule.moveTo(row, { nextChapter: row.nextChapter, nextUnlockAt });
    }
    const testClockId = rows.find((row) => row.testClockId !== null)?.testClockId;
    if (testClockId) await this.unlocks.runOnClock(testClockId, await this.clock.now(tenant, subscriberId));
  }
}
