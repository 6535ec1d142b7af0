import { Module } from '@nestjs/common';
import { EngagementReportService } from './application/engagement-report.service.js';
import { EngagementRepository } from './domain/engagement.repository.js';
import { AnalyticsController } from './http/analytics.controller.js';
import { PgEngagementRepository } from './infrastructure/pg-engagement.repository.js';
import { ANALYTICS_SUBSCRIBER_ROWS, ENGAGEMENT_DAY_COUNTS } from './infrastructure/analytics.entities.js';

@Module({
  controllers: [AnalyticsController],
  providers: [ANALYTICS_SUBSCRIBER_ROWS, { provide: EngagementRepository, useClass: PgEngagementRepository }, ENGAGEMENT_DAY_COUNTS, EngagementReportService],
})
export class AnalyticsModule {}
