import { currentTransaction } from './open-transaction.js';
import type { PgNotifications } from './pg-notifications.js';

/**
 * Reference data read from the database once per key and kept in memory, for data that
 * changes rarely and is read on every request (the catalog, plan mappings, credential statuses). A writer
 * sends `pg_notify(channel, key)` in its transaction; at commit every process listening
 * drops that key and reads it again on next use, so replicas agree within milliseconds.
 * An empty payload drops every key: PgNotifications sends one after reconnecting, since
 * notifications sent while the connection was down are lost.
 *
 * Coherence rests on one order: LISTEN is in place before the first load, and an entry is
 * dropped by any notification arriving after its load began. A load that read data older
 * than a commit therefore never outlives that commit's notification.
 *
 * `maxAgeMs` bounds what no notification announces (a row changed by hand in SQL): an entry
 * whose load began that long ago is read again on next use. 0 keeps nothing.
 */
export class NotifiedCache<V> {
  private readonly entries = new Map<string, { value: Promise<V>; loadedAt: number }>();
  private listening?: Promise<unknown>;

  constructor(
    private readonly notifications: PgNotifications,
    private readonly channel: string,
    private readonly load: (key: string) => Promise<V>,
    private readonly maxAgeMs = Infinity,
  ) {}

  get(key: string): Promise<V> {
    const entry = this.entries.get(key);
    if (entry && (this.maxAgeMs === Infinity || Date.now() - entry.loadedAt < this.maxAgeMs)) return entry.value;
    const loaded = { value: this.loadAfterListening(key), loadedAt: Date.now() };
    this.entries.set(key, loaded);
    // A failed load is not kept: the next read tries again.
    loaded.value.catch(() => this.entries.get(key) === loaded && this.entries.delete(key));
    return loaded.value;
  }

  /** Drops a key (every key when none is given); the next read loads it again. */
  invalidate(key?: string): void {
    if (key) this.entries.delete(key);
    else this.entries.clear();
  }

  private async loadAfterListening(key: string): Promise<V> {
    this.listening ??= this.notifications
      .listen(this.channel, (payload) => this.invalidate(payload))
      .catch((error: unknown) => {
        this.listening = undefined;
        throw error;
      });
    await this.listening;
    // Outside the caller's transaction, if any: shared by every request, an entry must hold
    // committed data, never writes of one transaction that may yet roll back.
    return currentTransaction.exit(() => this.load(key));
  }
}
