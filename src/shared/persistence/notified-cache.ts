import { currentTransaction } from './open-transaction.js';
import type { PgNotifications } from './pg-notifications.js';

/**
 * Reference data read from the database once per key and kept in memory, for data that
 * changes rarely and is read on every request (the catalog, plan mappings). A writer
 * sends `pg_notify(channel, key)` in its transaction; at commit every process listening
 * drops that key and reads it again on next use, so replicas agree within milliseconds.
 * An empty payload drops every key: PgNotifications sends one after reconnecting, since
 * notifications sent while the connection was down are lost.
 *
 * Coherence rests on one order: LISTEN is in place before the first load, and an entry is
 * dropped by any notification arriving after its load began. A load that read data older
 * than a commit therefore never outlives that commit's notification.
 */
export class NotifiedCache<V> {
  private readonly entries = new Map<string, Promise<V>>();
  private listening?: Promise<unknown>;

  constructor(
    private readonly notifications: PgNotifications,
    private readonly channel: string,
    private readonly load: (key: string) => Promise<V>,
  ) {}

  get(key: string): Promise<V> {
    let entry = this.entries.get(key);
    if (!entry) {
      entry = this.loadAfterListening(key);
      this.entries.set(key, entry);
      // A failed load is not kept: the next read tries again.
      entry.catch(() => this.entries.get(key) === entry && this.entries.delete(key));
    }
    return entry;
  }

  /** Drops a key (every key when none is given); the next read loads it again. */
  invalidate(key?: string): void {
    if (key) this.entries.delete(key);
    else this.entries.clear();
  }

  private async loadAfterListening(key: string): Promise<V> {
    this.listening ??= this.notifications.listen(this.channel, (payload) => this.invalidate(payload)).catch((error: unknown) => {
      this.listening = undefined;
      throw error;
    });
    await this.listening;
    // Outside the caller's transaction, if any: shared by every request, an entry must hold
    // committed data, never writes of one transaction that may yet roll back.
    return currentTransaction.exit(() => this.load(key));
  }
}
