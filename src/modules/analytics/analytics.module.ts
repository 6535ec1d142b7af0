import { Module } from '@nestjs/common';
import { ActivityRecorder } from './application/activity-recorder.service.js';
import { ActivityRepository } from './domain/activity.repository.js';
import { TypeOrmActivityRepository } from './infrastructure/typeorm-activity.repository.js';

@Module({
  providers: [{ provide: ActivityRepository, useClass: TypeOrmActivityRepository }, ActivityRecorder],
  exports: [ActivityRecorder],
})
export class AnalyticsModule {}
