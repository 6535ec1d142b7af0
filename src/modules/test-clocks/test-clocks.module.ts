import { Global, Module } from '@nestjs/common';
import { SubscriberClock } from '../../shared/tenancy/subscriber-clock.js';
import { RateLimitingModule } from '../rate-limiting/index.js';
import { ReadingModule } from '../reading/index.js';
import { TestClockTime } from './application/test-clock-time.js';
import { TestClockService } from './application/test-clock.service.js';
import { TestClockRepository } from './domain/test-clock.repository.js';
import { TestClocksController } from './http/test-clocks.controller.js';
import { PgTestClockRepository } from './infrastructure/pg-test-clock.repository.js';
import { TestClockSubscriberData } from './infrastructure/test-clock.subscriber-data.js';
import { subscriberData } from '../../shared/persistence/subscriber-rows.js';

/**
 * Sandbox test clocks (DECISIONS 28), and the time of every subscriber: this module
 * provides the SubscriberClock that entitlements, reading, playback, audio and endings ask
 * (ADR 0128). Global for that one port, since those modules sit below this one.
 */
@Global()
@Module({
  imports: [ReadingModule, RateLimitingModule],
  controllers: [TestClocksController],
  providers: [
    { provide: TestClockRepository, useClass: PgTestClockRepository },
    TestClockTime,
    { provide: SubscriberClock, useExisting: TestClockTime },
    TestClockService,
    ...subscriberData(TestClockSubscriberData),
  ],
  exports: [SubscriberClock],
})
export class TestClocksModule {}
