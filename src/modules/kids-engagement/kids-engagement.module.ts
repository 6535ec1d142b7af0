import { Module } from '@nestjs/common';
import { EntitlementsModule } from '../entitlements/index.js';
import { KidsActivityImporter } from './application/kids-activity-importer.service.js';
import { KidsEngagementService } from './application/kids-engagement.service.js';
import { KidsMonthFiguresService } from './application/kids-month-figures.service.js';
import { KidsActivityRepository } from './domain/kids-activity.repository.js';
import { KidsMonthFiguresRepository } from './domain/kids-month-figures.repository.js';
import { KidsEngagementController } from './http/kids-engagement.controller.js';
import { KIDS_DAY_COUNTS } from './infrastructure/kids-engagement.entities.js';
import { PgKidsActivityRepository } from './infrastructure/pg-kids-activity.repository.js';
import { KidsEngagementSubscriberData } from './infrastructure/kids-engagement.subscriber-data.js';
import { subscriberData } from '../../shared/persistence/subscriber-rows.js';
import { PgKidsMonthFiguresRepository } from './infrastructure/pg-kids-month-figures.repository.js';

@Module({
  imports: [EntitlementsModule],
  controllers: [KidsEngagementController],
  providers: [
    KIDS_DAY_COUNTS,
    ...subscriberData(KidsEngagementSubscriberData),
    { provide: KidsActivityRepository, useClass: PgKidsActivityRepository },
    { provide: KidsMonthFiguresRepository, useClass: PgKidsMonthFiguresRepository },
    KidsMonthFiguresService,
    KidsEngagementService,
    KidsActivityImporter,
  ],
  exports: [KidsActivityImporter],
})
export class KidsEngagementModule {}
