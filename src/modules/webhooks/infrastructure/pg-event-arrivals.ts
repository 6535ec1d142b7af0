import { type BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import { PgNotifications } from '../../../shared/persistence/pg-notifications.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { EventArrivals, type ArrivalSignal } from '../domain/event-arrivals.js';

/** The channel on which every event's commit is announced, with its tenant as payload. */
export const EVENT_ARRIVALS_CHANNEL = 'partner_events';

export const tenantKey = (tenant: Tenant) => `${tenant.partnerId}:${tenant.environment}`;

type Watcher = (why: ArrivalSignal) => void;

/**
 * Watchers wait here for the NOTIFY sent when one of their tenant's events commits, on any
 * replica. One LISTEN serves the whole process, and watchers hold no database connection.
 * An empty payload (the listening connection was lost and reopened, so notifications may
 * have been missed) signals every watcher, and shutdown signals each one to answer now.
 */
@Injectable()
export class PgEventArrivals extends EventArrivals implements BeforeApplicationShutdown {
  private readonly watchers = new Map<string, Set<Watcher>>();
  private listening?: Promise<unknown>;
  private closing = false;

  constructor(private readonly notifications: PgNotifications) {
    super();
  }

  async watch(tenant: Tenant, signal: Watcher): Promise<(() => void) | undefined> {
    if (this.closing) return undefined;
    await this.listen();
    const key = tenantKey(tenant);
    const watchers = this.watchers.get(key) ?? new Set();
    this.watchers.set(key, watchers);
    watchers.add(signal);
    return () => {
      watchers.delete(signal);
      if (watchers.size === 0 && this.watchers.get(key) === watchers) this.watchers.delete(key);
    };
  }

  beforeApplicationShutdown(): void {
    this.closing = true;
    this.signal('', 'closing');
  }

  private listen(): Promise<unknown> {
    this.listening ??= this.notifications
      .listen(EVENT_ARRIVALS_CHANNEL, (payload) => this.signal(payload, 'event'))
      .catch((error: unknown) => {
        this.listening = undefined;
        throw error;
      });
    return this.listening;
  }

  private signal(payload: string, why: ArrivalSignal): void {
    const keys = payload ? [payload] : [...this.watchers.keys()];
    for (const key of keys) for (const watcher of this.watchers.get(key) ?? []) watcher(why);
  }
}
