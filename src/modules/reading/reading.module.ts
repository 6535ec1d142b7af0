import { Module } from '@nestjs/common';
import { AnalyticsModule } from '../analytics/index.js';
import { CatalogModule } from '../catalog/index.js';
import { EntitlementsModule } from '../entitlements/index.js';
import { ChapterReadingService } from './application/chapter-reading.service.js';
import { ChapterReleaseService } from './application/chapter-release.service.js';
import { ReadingLifecycleHooks } from './application/reading-lifecycle-hooks.js';
import { ReadingProgressService } from './application/reading-progress.service.js';
import { ReadingProgressRepository } from './domain/reading-progress.repository.js';
import { NovelReadingController } from './http/novel-reading.controller.js';
import { ReadingProgressController } from './http/reading-progress.controller.js';
import { TypeOrmReadingProgressRepository } from './infrastructure/typeorm-reading-progress.repository.js';

/** Subscribers reading novels: the lifecycle, release state and chapter text (DECISIONS 7, 8, 10); endings build on it. */
@Module({
  imports: [CatalogModule, EntitlementsModule, AnalyticsModule],
  controllers: [ReadingProgressController, NovelReadingController],
  providers: [
    { provide: ReadingProgressRepository, useClass: TypeOrmReadingProgressRepository },
    ChapterReleaseService,
    ChapterReadingService,
    ReadingLifecycleHooks,
    ReadingProgressService,
  ],
  exports: [ChapterReleaseService, ReadingProgressService, ReadingLifecycleHooks],
})
export class ReadingModule {}
