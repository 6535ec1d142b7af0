import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/db.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { WebhookEventRepository } from '../domain/webhook-event.repository.js';
import type { WebhookEvent, WebhookEventType } from '../domain/webhook-event.js';

@Injectable()
export class PgWebhookEventRepository extends WebhookEventRepository {
  constructor(private readonly db: Db) {
    super();
  }

  async append(tenant: Tenant, event: WebhookEvent): Promise<void> {
    await this.db.query(
      `INSERT INTO webhook_events (event_id, partner_id, environment, event_type, payload, occurred_at)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [event.event_id, tenant.partnerId, tenant.environment, event.event, JSON.stringify(event), event.occurred_at],
    );
  }

  async typeOf(tenant: Tenant, eventId: string): Promise<WebhookEventType | null> {
    const rows = await this.db.query<{ event_type: WebhookEventType }>(
      `SELECT event_type FROM webhook_events WHERE event_id = $1 AND partner_id = $2 AND environment = $3`,
      [eventId, tenant.partnerId, tenant.environment],
    );
    return rows[0]?.event_type ?? null;
  }
}
