import type { Tenant } from '../../../shared/tenancy/tenant.js';
import type { FeedItem } from './event-feed.js';
import type { WebhookEvent, WebhookEventType } from './webhook-event.js';

/**
 * The transactional outbox and the partner's event feed: events are rows written with the
 * state change they announce, each numbered in its tenant's feed.
 */
export abstract class WebhookEventRepository {
  /**
   * Writes the event with the tenant's next `seq` and announces it to long polls at commit.
   * Holds the tenant's counter until the transaction ends: call it late in the transaction.
   */
  abstract append(tenant: Tenant, event: WebhookEvent): Promise<number>;
  /** Up to `limit` events with seq > `after`, in seq order. */
  abstract readAfter(tenant: Tenant, after: number, limit: number): Promise<FeedItem[]>;
  /** The highest seq removed by retention (0 when none was). */
  abstract prunedThrough(tenant: Tenant): Promise<number>;
  /**
   * Removes up to `batchSize` events created before `cutoff`, with their deliveries, and
   * records what was removed per tenant; returns how many were removed.
   */
  abstract pruneCreatedBefore(cutoff: Date, batchSize: number): Promise<number>;
  /** The type of one of the tenant's events, or null when the tenant has no such event. */
  abstract typeOf(tenant: Tenant, eventId: string): Promise<WebhookEventType | null>;
}
