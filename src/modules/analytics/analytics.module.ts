import { Module } from '@nestjs/common';
import { ActivityRecorder } from './application/activity-recorder.service.js';
import { EngagementReportService } from './application/engagement-report.service.js';
import { RollupRetentionJob } from './application/rollup-retention.job.js';
import { ActivityRepository } from './domain/activity.repository.js';
import { EngagementRepository } from './domain/engagement.repository.js';
import { RollupRetentionRepository } from './domain/rollup-retention.repository.js';
import { AnalyticsController } from './http/analytics.controller.js';
import { PgActivityRepository } from './infrastructure/pg-activity.repository.js';
import { PgEngagementRepository } from './infrastructure/pg-engagement.repository.js';
import { PgRollupRetentionRepository } from './infrastructure/pg-rollup-retention.repository.js';
import { ANALYTICS_SUBSCRIBER_ROWS, ENGAGEMENT_DAY_COUNTS } from './infrastructure/analytics.entities.js';

@Module({
  controllers: [AnalyticsController],
  providers: [
    ANALYTICS_SUBSCRIBER_ROWS,
    { provide: ActivityRepository, useClass: PgActivityRepository },
    { provide: EngagementRepository, useClass: PgEngagementRepository },
    { provide: RollupRetentionRepository, useClass: PgRollupRetentionRepository },
    ENGAGEMENT_DAY_COUNTS,
    ActivityRecorder,
    EngagementReportService,
    RollupRetentionJob,
  ],
  exports: [ActivityRecorder],
})
export class AnalyticsModule {}
