import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/db.js';
import { TypeOrmUnitOfWork } from '../../../shared/persistence/typeorm-unit-of-work.js';
import type { Environment, Tenant } from '../../../shared/tenancy/tenant.js';
import type { DeliveryState } from '../domain/retry-schedule.js';
import {
  WebhookDeliveryRepository,
  type BacklogFigures,
  type ClaimedDelivery,
  type DeliveryAttempt,
  type DeliveryRecord,
  type DeliveryStatus,
} from '../domain/webhook-delivery.repository.js';
import type { WebhookEventType } from '../domain/webhook-event.js';
import type { DeliveryFailure } from '../domain/webhook-sender.js';
import { CLAIM_SQL, LEASE_IS_LIVE, TENANTS_WITH_ENDPOINTS } from '../queries.js';
import { WebhookDeliveryAttemptEntity } from './webhook.entities.js';

/**
 * The backlog gauges: the undelivered counts summed from their signed counts (ADR 0060), and
 * the oldest due delivery as the earliest of each tenant's first due row (one index probe
 * per tenant with an endpoint), so that neither grows with the deliveries waiting.
 */
export const BACKLOG_SQL = `
  SELECT coalesce((SELECT sum(count) FROM webhook_delivery_counts WHERE status = 'pending'), 0) AS pending,
         coalesce((SELECT sum(count) FROM webhook_delivery_counts WHERE status = 'failed'), 0) AS failed,
         EXTRACT(EPOCH FROM now() - (
           SELECT min(due.next_attempt_at)
             FROM ${TENANTS_WITH_ENDPOINTS} AS tenant,
                  LATERAL (SELECT d.next_attempt_at FROM webhook_deliveries d
                            WHERE d.partner_id = tenant.partner_id AND d.environment = tenant.environment
                              AND d.status = 'pending' AND d.next_attempt_at <= now()
                            ORDER BY d.next_attempt_at LIMIT 1) AS due)) AS lag`;

interface ClaimedRow {
  id: string;
  claim_token: string;
  attempts_made: number;
  event_id: string;
  environment: Environment;
  seq: string;
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
  error: DeliveryFailure | null;
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

  async schedule(tenant: Tenant, eventId: string, eventType: WebhookEventType, delaySeconds: number, subscribedBefore?: Date): Promise<string[]> {
    // A delivery whose lease is live has its attempt in flight: starting it over would let
    // a second claimer make a second attempt beside it. ON CONFLICT's WHERE sees the row as
    // committed last, after waiting for its lock, so concurrent redeliveries agree.
    const rows = await this.db.query<{ endpoint_id: string }>(
      `WITH subscribed AS (
         SELECT id FROM webhook_endpoints
         WHERE partner_id = $1 AND environment = $2 AND $4 = ANY (event_types) AND ($6::timestamptz IS NULL OR created_at < $6)
       ), scheduled AS (
         INSERT INTO webhook_deliveries (partner_id, environment, event_id, endpoint_id, next_attempt_at)
         SELECT $1, $2, $3, id, now() + make_interval(secs => $5) FROM subscribed
         ON CONFLICT ON CONSTRAINT webhook_deliveries_event_endpoint DO UPDATE
           SET status = 'pending', attempts_made = 0, next_attempt_at = EXCLUDED.next_attempt_at,
               claim_token = NULL, updated_at = now()
           WHERE NOT (${LEASE_IS_LIVE('webhook_deliveries')})
       )
       SELECT id AS endpoint_id FROM subscribed`,
      [tenant.partnerId, tenant.environment, eventId, eventType, delaySeconds, subscribedBefore ?? null],
    );
    return rows.map((row) => row.endpoint_id);
  }

  claimDue(limit: number, perTenant: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    return this.unitOfWork.run(async () => {
      // Claimers take turns, each until its leases commit. The claim below is a statement of
      // its own, so its snapshot starts after the lock and counts every live lease of the
      // claimer before: the per-tenant bound holds across replicas. (A count in the locking
      // statement itself would use a snapshot taken before the lock was granted.)
      await this.db.query(`SELECT pg_advisory_xact_lock(hashtextextended('webhook_deliveries:claim', 0))`);
      const rows = await this.db.query<ClaimedRow>(CLAIM_SQL, [limit, perTenant, leaseMs]);
      return rows.map((row) => ({
        deliveryId: row.id,
        claimToken: row.claim_token,
        attemptsMade: row.attempts_made,
        eventId: row.event_id,
        environment: row.environment,
        sequence: Number(row.seq),
        body: row.body,
        url: row.url,
        sealedSecrets: row.sealed_secrets,
      }));
    });
  }

  recordAttempt(claim: ClaimedDelivery, attempt: DeliveryAttempt, next: DeliveryState): Promise<void> {
    return this.unitOfWork.run(async () => {
      const [current] = await this.db.query<{ claim_token: string | null }>(`SELECT claim_token FROM webhook_deliveries WHERE id = $1 FOR UPDATE`, [
        claim.deliveryId,
      ]);
      if (!current) return; // the endpoint was deleted during the attempt
      const { failure, ...rest } = attempt;
      await this.db.manager.getRepository(WebhookDeliveryAttemptEntity).insert({ deliveryId: claim.deliveryId, ...rest, error: failure });
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

  async backlog(): Promise<BacklogFigures> {
    const [row] = await this.db.query<{ pending: string; failed: string; lag: string | null }>(BACKLOG_SQL);
    return { pending: Number(row.pending), failed: Number(row.failed), oldestDueSeconds: Math.max(0, Number(row.lag ?? 0)) };
  }

  async listForEndpoint(tenant: Tenant, endpointId: string, filter: { status?: DeliveryStatus; limit: number }): Promise<DeliveryRecord[]> {
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
          failure: attempt.error,
          attemptedAt: attempt.attempted_at,
        })),
    }));
  }
}
