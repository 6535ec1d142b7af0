import { Module } from '@nestjs/common';
import { ActivityRecorder } from './application/activity-recorder.service.js';
import { EngagementReportService } from './application/engagement-report.service.js';
import { ActivityRepository } from './domain/activity.repository.js';
import { EngagementRepository } from './domain/engagement.repository.js';
import { AnalyticsController } from './http/analytics.controller.js';
import { PgActivityRepository } from './infrastructure/pg-activity.repository.js';
import { PgEngagementRepository } from './infrastructure/pg-engagement.repository.js';
import { ENGAGEMENT_DAY_COUNTS } from './infrastructure/analytics.entities.js';
import { ANALYTICS_EXEMPT_COLUMNS, AnalyticsSubscriberData } from './infrastructure/analytics.subscriber-data.js';
import { subscriberData } from '../../shared/persistence/subscriber-rows.js';

@Module({
  controllers: [AnalyticsController],
  providers: [
    ...subscriberData(AnalyticsSubscriberData),
    ...ANALYTICS_EXEMPT_COLUMNS,
    { provide: ActivityRepository, useClass: PgActivityRepository },
    { provide: EngagementRepository, useClass: PgEngagementRepository },
    ENGAGEMENT_DAY_COUNTS,
    ActivityRecorder,
    EngagementReportService,
  ],
  exports: [ActivityRecorder],
})
export class AnalyticsModule {}
