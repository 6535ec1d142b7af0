import type { Tenant } from '../../../shared/tenancy/tenant.js';

/** A one-shot watch on a tenant's events: `arrived` resolves on the next hint. */
export interface ArrivalWatch {
  readonly arrived: Promise<void>;
  stop(): void;
}

/**
 * Tells a long poll that one of the tenant's events may have been committed, on any
 * replica. A hint is a reason to read again, never a promise that something is there.
 * Watch before reading, then wait: an event committed between the read and the wait is
 * not missed.
 */
export abstract class EventArrivals {
  /** A watch, or undefined when the process is shutting down and no one should wait. */
  abstract watch(tenant: Tenant): Promise<ArrivalWatch | undefined>;
}
