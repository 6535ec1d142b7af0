import { type BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import { PgNotifications } from '../../../shared/persistence/pg-notifications.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { EventArrivals, type ArrivalWatch } from '../domain/event-arrivals.js';

/** The channel on which every event's commit is announced, with its tenant as payload. */
export const EVENT_ARRIVALS_CHANNEL = 'partner_events';

export const tenantKey = (tenant: Tenant) => `${tenant.partnerId}:${tenant.environment}`;

/**
 * Long polls wait here for the NOTIFY sent when one of their tenant's events commits, on
 * any replica. One LISTEN serves every waiter of the process, and waiters hold no database
 * connection. An empty payload (the listening connection was lost and reopened, so
 * notifications may have been missed) wakes every waiter, and so does shutdown, so that
 * long polls answer at once instead of holding the server open.
 */
@Injectable()
export class PgEventArrivals extends EventArrivals implements BeforeApplicationShutdown {
  private readonly waiters = new Map<string, Set<() => void>>();
  private listening?: Promise<unknown>;
  private closing = false;

  constructor(private readonly notifications: PgNotifications) {
    super();
  }

  async watch(tenant: Tenant): Promise<ArrivalWatch | undefined> {
    if (this.closing) return undefined;
    await this.listen();
    const key = tenantKey(tenant);
    let wake!: () => void;
    const arrived = new Promise<void>((resolve) => (wake = resolve));
    const waiters = this.waiters.get(key) ?? new Set();
    this.waiters.set(key, waiters);
    waiters.add(wake);
    const stop = () => {
      waiters.delete(wake);
      if (waiters.size === 0 && this.waiters.get(key) === waiters) this.waiters.delete(key);
    };
    return { arrived, stop };
  }

  beforeApplicationShutdown(): void {
    this.closing = true;
    this.wake('');
  }

  private listen(): Promise<unknown> {
    this.listening ??= this.notifications.listen(EVENT_ARRIVALS_CHANNEL, (payload) => this.wake(payload)).catch((error: unknown) => {
      this.listening = undefined;
      throw error;
    });
    return this.listening;
  }

  private wake(payload: string): void {
    const keys = payload ? [payload] : [...this.waiters.keys()];
    for (const key of keys) for (const wake of this.waiters.get(key) ?? []) wake();
  }
}
