import { Module } from '@nestjs/common';
import { ActivityRecorder } from './application/activity-recorder.service.js';
import { EngagementReportService } from './application/engagement-report.service.js';
import { ActivityRepository } from './domain/activity.repository.js';
import { EngagementRepository } from './domain/engagement.repository.js';
import { AnalyticsController } from './http/analytics.controller.js';
import { TypeOrmActivityRepository } from './infrastructure/typeorm-activity.repository.js';
import { TypeOrmEngagementRepository } from './infrastructure/typeorm-engagement.repository.js';

@Module({
  controllers: [AnalyticsController],
  providers: [
    { provide: ActivityRepository, useClass: TypeOrmActivityRepository },
    { provide: EngagementRepository, useClass: TypeOrmEngagementRepository },
    ActivityRecorder,
    EngagementReportService,
  ],
  exports: [ActivityRecorder],
})
export class AnalyticsModule {}
