import { Module } from '@nestjs/common';
import { AnalyticsModule } from '../analytics/index.js';
import { CatalogModule } from '../catalog/index.js';
import { EntitlementsModule } from '../entitlements/index.js';
import { WebhooksModule } from '../webhooks/index.js';
import { ChapterReadingService } from './application/chapter-reading.service.js';
import { ChapterUnlockScheduleService } from './application/chapter-unlock-schedule.service.js';
import { ChapterUnlockJob } from './application/chapter-unlock.job.js';
import { ChapterReleaseService } from './application/chapter-release.service.js';
import { ReadingLifecycleHooks } from './application/reading-lifecycle-hooks.js';
import { ReadingProgressService } from './application/reading-progress.service.js';
import { ReadingProgressRepository } from './domain/reading-progress.repository.js';
import { UnlockScheduleRepository } from './domain/unlock-schedule.js';
import { NovelReadingController } from './http/novel-reading.controller.js';
import { ReadingProgressController } from './http/reading-progress.controller.js';
import { PgUnlockScheduleRepository } from './infrastructure/pg-unlock-schedule.repository.js';
import { TypeOrmReadingProgressRepository } from './infrastructure/typeorm-reading-progress.repository.js';
import { ReadingSubscriberData } from './infrastructure/reading.subscriber-data.js';
import { subscriberData } from '../../shared/persistence/subscriber-rows.js';

/** Subscribers reading novels: the lifecycle, release state and its notifications (chapter.unlocked), chapter text (DECISIONS 7, 8, 10, 23); endings build on it. */
@Module({
  imports: [CatalogModule, EntitlementsModule, AnalyticsModule, WebhooksModule],
  controllers: [ReadingProgressController, NovelReadingController],
  providers: [
    ...subscriberData(ReadingSubscriberData),
    { provide: ReadingProgressRepository, useClass: TypeOrmReadingProgressRepository },
    { provide: UnlockScheduleRepository, useClass: PgUnlockScheduleRepository },
    ChapterUnlockScheduleService,
    ChapterUnlockJob,
    ChapterReleaseService,
    ChapterReadingService,
    ReadingLifecycleHooks,
    ReadingProgressService,
  ],
  exports: [ChapterReleaseService, ReadingProgressService, ReadingLifecycleHooks, ChapterUnlockJob],
})
export class ReadingModule {}
