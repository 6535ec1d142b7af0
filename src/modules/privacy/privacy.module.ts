import { Module } from '@nestjs/common';
import { SubscriberDataService } from './application/subscriber-data.service.js';
import { SubscriberDataController } from './http/subscriber-data.controller.js';

/**
 * A subscriber's data rights (DECISIONS 29): export and erasure over the registry that every
 * module holding subscriber data feeds (src/shared/tenancy/subscriber-data.ts).
 */
@Module({
  controllers: [SubscriberDataController],
  providers: [SubscriberDataService],
  exports: [SubscriberDataService],
})
export class PrivacyModule {}
