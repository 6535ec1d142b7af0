import type { Tenant } from '../../../shared/tenancy/tenant.js';
import type { WebhookEvent } from './webhook-event.js';

/** The transactional outbox: events are rows written with the state change they announce. */
export abstract class WebhookEventRepository {
  abstract append(tenant: Tenant, event: WebhookEvent): Promise<void>;
}
