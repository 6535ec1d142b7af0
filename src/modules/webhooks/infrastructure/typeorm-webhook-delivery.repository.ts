import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/db.js';
import { TypeOrmUnitOfWork } from '../../../shared/persistence/typeorm-unit-of-work.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import type { DeliveryState } from '../domain/retry-schedule.js';
import {
  WebhookDeliveryRepository,
  type ClaimedDelivery,
  type DeliveryAttempt,
  type DeliveryRecord,
  type DeliveryStatus,
} from '../domain/webhook-delivery.repository.js';
import type { WebhookEventType } from '../domain/webhook-event.js';
import { WebhookDeliveryAttemptEntity } from './webhook.entities.js';

interface ClaimedRow {
  id: string;
  claim_token: string;
  attempts_made: number;
  event_id: string;
  body: string;
  url: string;
  sealed_secrets: string[];
}

interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: WebhookEventType;
  status: DeliveryStatus;
  next_attempt_at: Date | null;
  created_at: Date;
}

interface AttemptRow {
  delivery_id: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  attempted_at: Date;
}

@Injectable()
export class TypeOrmWebhookDeliveryRepository extends WebhookDeliveryRepository {
  constructor(
    private readonly db: Db,
    private readonly unitOfWork: TypeOrmUnitOfWork,
  ) {
    super();
  }

  async schedule(tenant: Tenant, eventId: string, eventType: WebhookEventType, delaySeconds: number): Promise<string[]> {
    const rows = await this.db.query<{ endpoint_id: string }>(
      `INSERT INTO webhook_deliveries (partner_id, environment, event_id, endpoint_id, next_attempt_at)
       SELECT partner_id, environment, $3, id, now() + make_interval(secs => $5)
       FROM webhook_endpoints
       WHERE partner_id = $1 AND environment = $2 AND $4 = ANY (event_types)
       ON CONFLICT ON CONSTRAINT webhook_deliveries_event_endpoint DO UPDATE
         SET status = 'pending', attempts_made = 0, next_attempt_at = EXCLUDED.next_attempt_at,
             claim_token = NULL, updated_at = now()
       RETURNING endpoint_id`,
      [tenant.partnerId, tenant.environment, eventId, eventType, delaySeconds],
    );
    return rows.map((row) => row.endpoint_id);
  }

  async claimDue(limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    // One statement, so the row locks taken by SKIP LOCKED last until the lease is written:
    // a concurrent claimer skips these rows, or sees them no longer due once this commits.
    // (The UPDATE sits in a CTE because TypeORM answers a top-level UPDATE with a row count.)
    const rows = await this.db.query<ClaimedRow>(
      `WITH due AS (
         SELECT id FROM webhook_deliveries
         WHERE status = 'pending' AND next_attempt_at <= now()
         ORDER BY next_attempt_at
         LIMIT $1
         FOR UPDATE SKIP LOCKED
       ), claimed AS (
         UPDATE webhook_deliveries d
         SET next_attempt_at = now() + make_interval(secs => $2::double precision / 1000),
             claim_token = gen_random_uuid(), updated_at = now()
         FROM due
         WHERE d.id = due.id
         RETURNING d.id, d.claim_token, d.attempts_made, d.event_id, d.endpoint_id
       )
       SELECT c.id, c.claim_token, c.attempts_made, c.event_id, e.payload::text AS body, ep.url,
         ARRAY(SELECT s.sealed_secret FROM webhook_endpoint_secrets s
               WHERE s.endpoint_id = c.endpoint_id AND (s.expires_at IS NULL OR s.expires_at > now())
               ORDER BY s.created_at DESC) AS sealed_secrets
       FROM claimed c
       JOIN webhook_events e ON e.event_id = c.event_id
       JOIN webhook_endpoints ep ON ep.id = c.endpoint_id`,
      [limit, leaseMs],
    );
    return rows.map((row) => ({
      deliveryId: row.id,
      claimToken: row.claim_token,
      attemptsMade: row.attempts_made,
      eventId: row.event_id,
      body: row.body,
      url: row.url,
      sealedSecrets: row.sealed_secrets,
    }));
  }

  recordAttempt(claim: ClaimedDelivery, attempt: DeliveryAttempt, next: DeliveryState): Promise<void> {
    return this.unitOfWork.run(async () => {
      const [current] = await this.db.query<{ claim_token: string | null }>(
        `SELECT claim_token FROM webhook_deliveries WHERE id = $1 FOR UPDATE`,
        [claim.deliveryId],
      );
      if (!current) return; // the endpoint was deleted during the attempt
      await this.db.manager.getRepository(WebhookDeliveryAttemptEntity).insert({ deliveryId: claim.deliveryId, ...attempt });
      // A redelivery or an expired lease handed the delivery on: the attempt is logged,
      // but its new holder decides what happens next.
      if (current.claim_token !== claim.claimToken) return;
      await this.db.query(
        `UPDATE webhook_deliveries
         SET status = $2, attempts_made = attempts_made + 1, claim_token = NULL, updated_at = now(),
             next_attempt_at = CASE WHEN $2 = 'pending' THEN now() + make_interval(secs => $3) END
         WHERE id = $1`,
        [claim.deliveryId, next.status, next.status === 'pending' ? next.retryInSeconds : null],
      );
    });
  }

  async listForEndpoint(
    tenant: Tenant,
    endpointId: string,
    filter: { status?: DeliveryStatus; limit: number },
  ): Promise<DeliveryRecord[]> {
    const deliveries = await this.db.query<DeliveryRow>(
      `SELECT d.id, d.event_id, e.event_type, d.status, d.next_attempt_at, d.created_at
       FROM webhook_deliveries d JOIN webhook_events e ON e.event_id = d.event_id
       WHERE d.partner_id = $1 AND d.environment = $2 AND d.endpoint_id = $3 AND ($4::text IS NULL OR d.status = $4)
       ORDER BY d.id DESC
       LIMIT $5`,
      [tenant.partnerId, tenant.environment, endpointId, filter.status ?? null, filter.limit],
    );
    const attempts = await this.db.query<AttemptRow>(
      `SELECT delivery_id, status_code, duration_ms, error, attempted_at
       FROM webhook_delivery_attempts WHERE delivery_id = ANY ($1::bigint[]) ORDER BY id`,
      [deliveries.map((delivery) => delivery.id)],
    );
    return deliveries.map((delivery) => ({
      eventId: delivery.event_id,
      eventType: delivery.event_type,
      status: delivery.status,
      nextAttemptAt: delivery.status === 'pending' ? delivery.next_attempt_at : null,
      createdAt: delivery.created_at,
      attempts: attempts
        .filter((attempt) => attempt.delivery_id === delivery.id)
        .map((attempt) => ({
          statusCode: attempt.status_code,
          durationMs: attempt.duration_ms,
          error: attempt.error,
          attemptedAt: attempt.attempted_at,
        })),
    }));
  }
}
