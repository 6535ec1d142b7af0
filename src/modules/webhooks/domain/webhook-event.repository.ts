import type { Tenant } from '../../../shared/tenancy/tenant.js';
import type { WebhookEvent, WebhookEventType } from './webhook-event.js';

/** The transactional outbox: events are rows written with the state change they announce. */
export abstract class WebhookEventRepository {
  abstract append(tenant: Tenant, event: WebhookEvent): Promise<void>;
  /** The type of one of the tenant's events, or null when the tenant has no such event. */
  abstract typeOf(tenant: Tenant, eventId: string): Promise<WebhookEventType | null>;
}
