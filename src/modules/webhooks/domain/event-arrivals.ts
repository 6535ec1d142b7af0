import type { Tenant } from '../../../shared/tenancy/tenant.js';

/** Why a tenant's watcher is called: one of its events may have committed, or the process is stopping. */
export type ArrivalSignal = 'event' | 'closing';

/**
 * Tells a process that one of a tenant's events may have been committed, on any replica.
 * A signal is a reason to read again, never a promise that something is there. Watch
 * before reading, then wait: an event committed between the read and the wait is not
 * missed.
 */
export abstract class EventArrivals {
  /**
   * Calls `signal` for each hint about the tenant until the returned function is called;
   * undefined when the process is shutting down and no one should wait.
   */
  abstract watch(tenant: Tenant, signal: (why: ArrivalSignal) => void): Promise<(() => void) | undefined>;
}
