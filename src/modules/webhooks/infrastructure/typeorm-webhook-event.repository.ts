import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/typeorm-unit-of-work.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { WebhookEventRepository } from '../domain/webhook-event.repository.js';
import type { WebhookEvent } from '../domain/webhook-event.js';

@Injectable()
export class TypeOrmWebhookEventRepository extends WebhookEventRepository {
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
}
