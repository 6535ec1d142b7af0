import { Injectable } from '@nestjs/common';
import type { Tenant } from './tenant.js';

/** One module's rows about a subscriber: whether there are any, and how to delete them. */
export interface SubscriberDataHolder {
  /** What the rows are, for a refusal that names them ("entitlements"). */
  readonly name: string;
  holdsAny(tenant: Tenant, subscriberId: string): Promise<boolean>;
  /** Deletes them, in the caller's transaction. */
  erase(tenant: Tenant, subscriberId: string): Promise<void>;
}

/**
 * Every module that keeps rows about a subscriber registers them here at start, so that a
 * clean slate (a test clock deleted, DECISIONS 28) reaches all of them without its owner
 * knowing the modules. Call `erase` inside a unit of work: all of it or none.
 */
@Injectable()
export class SubscriberDataRegistry {
  private readonly holders: SubscriberDataHolder[] = [];

  register(holder: SubscriberDataHolder): void {
    this.holders.push(holder);
  }

  /** The names of the kinds of data the subscriber has, in registration order. */
  async heldBy(tenant: Tenant, subscriberId: string): Promise<string[]> {
    const held: string[] = [];
    // One after another: inside a transaction they share its connection.
    for (const holder of this.holders) if (await holder.holdsAny(tenant, subscriberId)) held.push(holder.name);
    return held;
  }

  /**
   * Requests that write the subscriber's rows without holding its test clock (a playback
   * save, a chapter read) may lock them in another order: a deadlock then fails one side
   * with PostgreSQL's 40P01, which answers 503 with Retry-After (the contract's retry).
   */
  async erase(tenant: Tenant, subscriberId: string): Promise<void> {
    for (const holder of this.holders) await holder.erase(tenant, subscriberId);
  }
}
