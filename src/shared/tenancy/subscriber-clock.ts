import type { Tenant } from './tenant.js';

/** What time it is for one subscriber, and why. */
export interface SubscriberTime {
  now: Date;
  /** The sandbox test clock the subscriber is attached to (DECISIONS 28); null: real time. */
  testClockId: string | null;
}

/**
 * "Now" for a subscriber: the frozen time of its sandbox test clock when it has one,
 * else the real time. Every rule that asks for the time of a subscriber asks here, once per
 * request. A live tenant never has a clock and is answered without a lookup.
 *
 * A port (ADR 0128): modules low in the graph (entitlements, reading) ask it, and the
 * test-clocks module, which builds on them, implements it.
 */
export abstract class SubscriberClock {
  abstract timeOf(tenant: Tenant, subscriberId: string): Promise<SubscriberTime>;

  /**
   * As `timeOf`, for a write: call it inside the write's unit of work, before its other
   * locks. The subscriber's clock is then held (shared) until the write commits, so an
   * advance or a deletion of the clock waits for the write, and the write never stamps a
   * time the clock has already left or commits data for a clock already deleted.
   */
  abstract timeForWrite(tenant: Tenant, subscriberId: string): Promise<SubscriberTime>;

  async now(tenant: Tenant, subscriberId: string): Promise<Date> {
    return (await this.timeOf(tenant, subscriberId)).now;
  }
}
