import type { TestClock } from './test-clock.js';

/** Test clocks and their subscribers, of one partner's sandbox. */
export abstract class TestClockRepository {
  /** Creates a clock unless the partner already has `limit` (null then); serialised per partner. */
  abstract createWithin(limit: number, partnerId: string, clock: { name: string | null; frozenTime: Date }): Promise<TestClock | null>;
  /** The partner's clocks, oldest first. */
  abstract list(partnerId: string): Promise<TestClock[]>;
  /** The clock, locked until the transaction ends: attaching, advancing and deleting one clock take turns. */
  abstract lock(partnerId: string, id: string): Promise<TestClock | null>;
  abstract find(partnerId: string, id: string): Promise<TestClock | null>;
  /**
   * The clock the subscriber is attached to, if any. `holdUntilCommit`: its row is locked in
   * share mode until the caller's transaction ends (a write of the subscriber's data).
   */
  abstract clockOf(partnerId: string, subscriberId: string, options?: { holdUntilCommit: boolean }): Promise<{ id: string; frozenTime: Date } | null>;
  /** false when the subscriber was attached to a clock meanwhile. */
  abstract attach(partnerId: string, clockId: string, subscriberId: string): Promise<boolean>;
  abstract setFrozenTime(id: string, frozenTime: Date): Promise<void>;
  /** Deletes the clock and its attachments. */
  abstract delete(id: string): Promise<void>;
}
