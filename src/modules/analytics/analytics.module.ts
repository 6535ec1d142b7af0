import { Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/index.js';
import { EngagementReportService } from './application/engagement-report.service.js';
import { RollupRetentionJob } from './application/rollup-retention.job.js';
import { EngagementRepository } from './domain/engagement.repository.js';
import { RollupRetentionRepository } from './domain/rollup-retention.repository.js';
import { AnalyticsController } from './http/analytics.controller.js';
import { PgEngagementRepository } from './infrastructure/pg-engagement.repository.js';
import { PgRollupRetentionRepository } from './infrastructure/pg-rollup-retention.repository.js';
import { ENGAGEMENT_DAY_COUNTS, ENGAGEMENT_MONTH_COUNTS } from './infrastructure/analytics.entities.js';
import { ANALYTICS_EXEMPT_COLUMNS, AnalyticsSubscriberData } from './infrastructure/analytics.subscriber-data.js';
import { subscriberData } from '../../shared/persistence/subscriber-rows.js';

@Module({
  imports: [CatalogModule],
  controllers: [AnalyticsController],
  providers: [
    ...subscriberData(AnalyticsSubscriberData),
    ...ANALYTICS_EXEMPT_COLUMNS,
    { provide: EngagementRepository, useClass: PgEngagementRepository },
    { provide: RollupRetentionRepository, useClass: PgRollupRetentionRepository },
    ENGAGEMENT_DAY_COUNTS,
    ENGAGEMENT_MONTH_COUNTS,
    EngagementReportService,
    RollupRetentionJob,
  ],
})
export class AnalyticsModule {}
