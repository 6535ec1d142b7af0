import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { signedCounts } from '../../../shared/persistence/signed-counts.js';

// The schema is made by the migrations; these mappings mirror them exactly (names included)
// so that generating a migration from the entities finds nothing to change.

@Entity('webhook_events')
@Index('webhook_events_feed', ['partnerId', 'environment', 'seq'], { unique: true })
@Index('webhook_events_created', ['createdAt'])
// On an expression of the payload, beyond what TypeORM describes: declared so that it is left alone.
@Index('webhook_events_subscriber', { synchronize: false })
export class WebhookEventEntity {
  @PrimaryColumn('uuid', { name: 'event_id' }) eventId: string;
  @Column('uuid', { name: 'partner_id' }) partnerId: string;
  @Column('text') environment: string;
  @Column('text', { name: 'event_type' }) eventType: string;
  @Column('jsonb') payload: Record<string, unknown>;
  @Column('timestamptz', { name: 'occurred_at' }) occurredAt: Date;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt: Date;
  /** Position in the partner's feed: gap-free per (partner, environment), in commit order. */
  @Column('bigint') seq: string;
}

@Entity('partner_event_sequences')
@Check('partner_event_sequences_environment_check', `environment IN ('live', 'sandbox')`)
export class PartnerEventSequenceEntity {
  @PrimaryColumn('uuid', { name: 'partner_id' }) partnerId: string;
  @PrimaryColumn('text') environment: string;
  @Column('bigint', { name: 'last_seq' }) lastSeq: string;
  @Column('bigint', { name: 'pruned_through', default: 0 }) prunedThrough: string;
}

@Entity('webhook_endpoints')
@Index('webhook_endpoints_partner', ['partnerId', 'environment', 'createdAt'])
@Check('webhook_endpoints_environment_check', `environment IN ('live', 'sandbox')`)
export class WebhookEndpointEntity {
  @PrimaryGeneratedColumn('uuid') id: string;
  @Column('uuid', { name: 'partner_id' })
  @ForeignKey('PartnerEntity', 'id', { name: 'webhook_endpoints_partner_id_fkey' })
  partnerId: string;
  @Column('text') environment: string;
  @Column('text') url: string;
  @Column('text', { name: 'event_types', array: true }) eventTypes: string[];
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt: Date;
}

@Entity('webhook_endpoint_secrets')
@Index('webhook_endpoint_secrets_endpoint', ['endpointId'])
@Index('webhook_endpoint_secrets_current', ['endpointId'], { unique: true, where: 'expires_at IS NULL' })
export class WebhookEndpointSecretEntity {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' }) id: string;
  @Column('uuid', { name: 'endpoint_id' })
  @ForeignKey(() => WebhookEndpointEntity, 'id', { name: 'webhook_endpoint_secrets_endpoint_id_fkey', onDelete: 'CASCADE' })
  endpointId: string;
  @Column('text', { name: 'sealed_secret' }) sealedSecret: string;
  @Column('timestamptz', { name: 'created_at', default: () => 'clock_timestamp()' }) createdAt: Date;
  @Column('timestamptz', { name: 'expires_at', nullable: true }) expiresAt: Date | null;
}

@Entity('webhook_deliveries')
@Unique('webhook_deliveries_event_endpoint', ['eventId', 'endpointId'])
// (status) INCLUDE (next_attempt_at) WHERE status IN ('pending', 'failed'): TypeORM cannot declare INCLUDE.
@Index('webhook_deliveries_undelivered', { synchronize: false })
@Index('webhook_deliveries_leased', ['partnerId', 'environment', 'nextAttemptAt'], { where: `status = 'pending' AND claim_token IS NOT NULL` })
@Index('webhook_deliveries_endpoint', ['partnerId', 'endpointId', 'id'])
@Index('webhook_deliveries_tenant_due', ['partnerId', 'environment', 'nextAttemptAt'], { where: `status = 'pending'` })
@Check('webhook_deliveries_status_check', `status IN ('pending', 'delivered', 'failed', 'cancelled')`)
export class WebhookDeliveryEntity {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' }) id: string;
  @Column('uuid', { name: 'partner_id' }) partnerId: string;
  @Column('text') environment: string;
  @Column('uuid', { name: 'event_id' })
  @ForeignKey(() => WebhookEventEntity, 'eventId', { name: 'webhook_deliveries_event_id_fkey' })
  eventId: string;
  @Column('uuid', { name: 'endpoint_id' })
  @ForeignKey(() => WebhookEndpointEntity, 'id', { name: 'webhook_deliveries_endpoint_id_fkey', onDelete: 'CASCADE' })
  endpointId: string;
  @Column('text', { default: 'pending' }) status: string;
  @Column('integer', { name: 'attempts_made', default: 0 }) attemptsMade: number;
  @Column('timestamptz', { name: 'next_attempt_at', nullable: true }) nextAttemptAt: Date | null;
  @Column('uuid', { name: 'claim_token', nullable: true }) claimToken: string | null;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt: Date;
}

@Entity('webhook_delivery_attempts')
@Index('webhook_delivery_attempts_delivery', ['deliveryId', 'id'])
@Check('webhook_delivery_attempts_error_check', `error IN ('timeout', 'connection_refused', 'tls', 'dns', 'http_status')`)
export class WebhookDeliveryAttemptEntity {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' }) id: string;
  @Column('bigint', { name: 'delivery_id' })
  @ForeignKey(() => WebhookDeliveryEntity, 'id', { name: 'webhook_delivery_attempts_delivery_id_fkey', onDelete: 'CASCADE' })
  deliveryId: string;
  @Column('integer', { name: 'status_code', nullable: true }) statusCode: number | null;
  @Column('integer', { name: 'duration_ms' }) durationMs: number;
  @Column('text', { nullable: true }) error: string | null;
  @Column('timestamptz', { name: 'attempted_at' }) attemptedAt: Date;
}

/**
 * Signed counts of the undelivered deliveries by status, kept by triggers on the table above
 * and folded by the signed-count job (migration 1764100600000, ADR 0060).
 */
@Entity('webhook_delivery_counts')
@Index('webhook_delivery_counts_status', { synchronize: false })
@Index('webhook_delivery_counts_unsettled', { synchronize: false })
@Check('webhook_delivery_counts_status_check', `status IN ('pending', 'failed')`)
export class WebhookDeliveryCountEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' }) id: string;
  @Column('text') status: string;
  @Column('bigint') count: string;
  @Column('boolean', { default: false }) settled: boolean;
}

export const WEBHOOK_DELIVERY_COUNTS = signedCounts('webhook_delivery_counts', ['status']);

export const WEBHOOK_ENTITIES = [
  PartnerEventSequenceEntity,
  WebhookEventEntity,
  WebhookEndpointEntity,
  WebhookEndpointSecretEntity,
  WebhookDeliveryEntity,
  WebhookDeliveryAttemptEntity,
  WebhookDeliveryCountEntity,
];
