import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/db.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { EVENT_ARRIVALS_CHANNEL, tenantKey } from './pg-event-arrivals.js';
import type { FeedItem } from '../domain/event-feed.js';
import { WebhookEventRepository } from '../domain/webhook-event.repository.js';
import type { WebhookEvent, WebhookEventType } from '../domain/webhook-event.js';

@Injectable()
export class PgWebhookEventRepository extends WebhookEventRepository {
  constructor(private readonly db: Db) {
    super();
  }

  async append(tenant: Tenant, event: WebhookEvent): Promise<number> {
    // One round trip: take the tenant's next seq (its counter row stays locked until the
    // transaction ends, which orders seq by commit), write the event, and queue the NOTIFY
    // that PostgreSQL sends to every replica's long polls at commit.
    const rows = await this.db.query<{ seq: string }>(
      `WITH next AS (
         INSERT INTO partner_event_sequences AS s (partner_id, environment, last_seq) VALUES ($2, $3, 1)
         ON CONFLICT (partner_id, environment) DO UPDATE SET last_seq = s.last_seq + 1
         RETURNING last_seq
       )
       INSERT INTO webhook_events (event_id, partner_id, environment, event_type, payload, occurred_at, seq)
       SELECT $1, $2, $3, $4, $5, $6, next.last_seq FROM next, (SELECT pg_notify($7, $8)) AS announced
       RETURNING seq`,
      [event.event_id, tenant.partnerId, tenant.environment, event.event, JSON.stringify(event), event.occurred_at, EVENT_ARRIVALS_CHANNEL, tenantKey(tenant)],
    );
    return Number(rows[0].seq);
  }

  async readAfter(tenant: Tenant, after: number, limit: number): Promise<FeedItem[]> {
    const rows = await this.db.query<{ seq: string; payload: WebhookEvent }>(
      `SELECT seq, payload FROM webhook_events WHERE partner_id = $1 AND environment = $2 AND seq > $3 ORDER BY seq LIMIT $4`,
      [tenant.partnerId, tenant.environment, after, limit],
    );
    return rows.map(({ seq, payload }) => ({ seq: Number(seq), ...payload }));
  }

  async prunedThrough(tenant: Tenant): Promise<number> {
    const rows = await this.db.query<{ pruned_through: string }>(
      `SELECT pruned_through FROM partner_event_sequences WHERE partner_id = $1 AND environment = $2`,
      [tenant.partnerId, tenant.environment],
    );
    return Number(rows[0]?.pruned_through ?? 0);
  }

  async pruneCreatedBefore(cutoff: Date, batchSize: number): Promise<number> {
    // Replicas running the job side by side skip each other's rows. Deliveries reference
    // their event, so they go in the same statement (their attempts cascade).
    const rows = await this.db.query<{ removed: string }>(
      `WITH doomed AS (
         SELECT event_id FROM webhook_events WHERE created_at < $1 ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED
       ), gone_deliveries AS (
         DELETE FROM webhook_deliveries AS d USING doomed WHERE d.event_id = doomed.event_id
       ), gone AS (
         DELETE FROM webhook_events AS e USING doomed WHERE e.event_id = doomed.event_id
         RETURNING e.partner_id, e.environment, e.seq
       ), marked AS (
         UPDATE partner_event_sequences AS s SET pruned_through = GREATEST(s.pruned_through, g.max_seq)
           FROM (SELECT partner_id, environment, max(seq) AS max_seq FROM gone GROUP BY partner_id, environment) AS g
          WHERE s.partner_id = g.partner_id AND s.environment = g.environment
       )
       SELECT count(*) AS removed FROM gone`,
      [cutoff, batchSize],
    );
    return Number(rows[0].removed);
  }

  async typeOf(tenant: Tenant, eventId: string): Promise<WebhookEventType | null> {
    const rows = await this.db.query<{ event_type: WebhookEventType }>(
      `SELECT event_type FROM webhook_events WHERE event_id = $1 AND partner_id = $2 AND environment = $3`,
      [eventId, tenant.partnerId, tenant.environment],
    );
    return rows[0]?.event_type ?? null;
  }
}
