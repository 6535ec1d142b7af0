import { Injectable } from '@nestjs/common';
import { SubscriberClock, type SubscriberTime } from '../../../shared/tenancy/subscriber-clock.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { TestClockRepository } from '../domain/test-clock.repository.js';

/**
 * The subscriber's time for every module (ADR 0128). Live never has a clock and costs
 * nothing. A sandbox subscriber's clock is read from the database at each call, not cached:
 * after an advance answers, the next request through any replica must see the new time.
 */
@Injectable()
export class TestClockTime extends SubscriberClock {
  constructor(private readonly clocks: TestClockRepository) {
    super();
  }

  async timeOf(tenant: Tenant, subscriberId: string): Promise<SubscriberTime> {
    return timeOn(tenant.environment === 'sandbox' ? await this.clocks.clockOf(tenant.partnerId, subscriberId) : null);
  }

  async timeForWrite(tenant: Tenant, subscriberId: string): Promise<SubscriberTime> {
    return timeOn(tenant.environment === 'sandbox' ? await this.clocks.clockOf(tenant.partnerId, subscriberId, { holdUntilCommit: true }) : null);
  }
}

function timeOn(clock: { id: string; frozenTime: Date } | null): SubscriberTime {
  return clock ? { now: clock.frozenTime, testClockId: clock.id } : { now: new Date(), testClockId: null };
}
