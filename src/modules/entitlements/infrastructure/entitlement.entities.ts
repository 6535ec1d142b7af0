import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { signedCounts } from '../../../shared/persistence/signed-counts.js';

// The schema is made by the migrations; these mappings mirror them exactly (names included)
// so that generating a migration from the entities finds nothing to change. The partners
// table belongs to the identity module: it is named here, not imported.

@Entity('entitlements')
@Index('entitlements_active_by_product', ['partnerId', 'environment', 'product'], { where: `status = 'active'` })
@Check('entitlements_environment_check', `environment IN ('live', 'sandbox')`)
@Check('entitlements_product_check', `product IN ('textapp', 'audioapp', 'kidsapp')`)
@Check('entitlements_status_check', `status IN ('active', 'suspended', 'canceled')`)
export class EntitlementEntity {
  @PrimaryColumn('uuid', { name: 'partner_id' })
  @ForeignKey('PartnerEntity', 'id', { name: 'entitlements_partner_id_fkey' })
  partnerId: string;
  @PrimaryColumn('text') environment: string;
  @PrimaryColumn('text', { name: 'subscriber_id' }) subscriberId: string;
  @PrimaryColumn('text') product: string;
  @Column('text') status: string;
  @Column('text', { name: 'partner_plan', nullable: true }) partnerPlan: string | null;
  @Column('text', { name: 'internal_plan' }) internalPlan: string;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt: Date;
  /** When the last accepted change happened at the partner (the receipt time when it did not say). */
  @Column('timestamptz', { name: 'effective_at', default: () => 'clock_timestamp()' }) effectiveAt: Date;
}

@Entity('entitlement_history')
@Index('entitlement_history_subscriber', ['partnerId', 'environment', 'subscriberId', 'product', 'id'])
@Index('entitlement_history_product_effective', ['partnerId', 'environment', 'product', 'effectiveAt'], { where: 'NOT stale' })
@Index('entitlement_history_subscriber_effective', ['partnerId', 'environment', 'subscriberId', 'product', 'effectiveAt', 'id'], { where: 'NOT stale' })
export class EntitlementHistoryEntity {
  @PrimaryGeneratedColumn('increment', { type: 'bigint' }) id: string;
  @Column('uuid', { name: 'partner_id' }) partnerId: string;
  @Column('text') environment: string;
  @Column('text', { name: 'subscriber_id' }) subscriberId: string;
  @Column('text') product: string;
  @Column('text', { name: 'old_status', nullable: true }) oldStatus: string | null;
  @Column('text', { name: 'new_status' }) newStatus: string;
  @Column('text', { name: 'partner_plan', nullable: true }) partnerPlan: string | null;
  @Column('text', { name: 'internal_plan' }) internalPlan: string;
  @Column('text', { name: 'changed_by' }) changedBy: string;
  @Column('timestamptz', { name: 'changed_at', default: () => 'clock_timestamp()' }) changedAt: Date;
  /** When the change happened at the partner (the receipt time when it did not say). */
  @Column('timestamptz', { name: 'effective_at', default: () => 'clock_timestamp()' }) effectiveAt: Date;
  /** Older than the record's last change when it arrived: kept for the record, never applied. */
  @Column('boolean', { default: false }) stale: boolean;
  /**
   * On an applied change that makes the subscriber active, since when it was not
   * (`-infinity`: never before); set by a trigger (migration 1764100800000, ADR 0133).
   */
  @Column('timestamptz', { name: 'inactive_since', nullable: true }) inactiveSince: Date | null;
}

@Entity('plan_mappings')
export class PlanMappingEntity {
  @PrimaryColumn('uuid', { name: 'partner_id' })
  @ForeignKey('PartnerEntity', 'id', { name: 'plan_mappings_partner_id_fkey' })
  partnerId: string;
  @PrimaryColumn('text', { name: 'partner_plan' }) partnerPlan: string;
  @Column('text', { name: 'internal_plan' }) internalPlan: string;
}

/**
 * Signed counts per product behind billing usage, kept by triggers on the two tables above
 * and folded by the signed-count job (migration 1764100400000, ADR 0129).
 */
@Entity('entitlement_counts')
@Index('entitlement_counts_product', { synchronize: false })
@Index('entitlement_counts_unsettled', { synchronize: false })
@Check('entitlement_counts_measure_check', `measure IN ('active', 'records', 'created', 'moves')`)
export class EntitlementCountEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' }) id: string;
  @Column('uuid', { name: 'partner_id' }) partnerId: string;
  @Column('text') environment: string;
  @Column('text') product: string;
  @Column('text') measure: string;
  @Column('date', { default: () => "'-infinity'" }) day: string;
  @Column('bigint') count: string;
  @Column('boolean', { default: false }) settled: boolean;
}

/**
 * Per-day summaries of the active count's moves behind billing usage, and the marks that
 * writers leave for the signed-count job to settle (migration 1764100500000, ADR 0129).
 */
@Entity('entitlement_day_peaks')
@Index('entitlement_day_peaks_day', { synchronize: false })
@Index('entitlement_day_peaks_unsettled', { synchronize: false })
@Check('entitlement_day_peaks_shape', `settled = (changed_from IS NULL) AND settled = (through IS NOT NULL)`)
export class EntitlementDayPeakEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' }) id: string;
  @Column('uuid', { name: 'partner_id' }) partnerId: string;
  @Column('text') environment: string;
  @Column('text') product: string;
  @Column('date') day: string;
  @Column('boolean', { default: false }) settled: boolean;
  @Column('timestamptz', { name: 'changed_from', nullable: true }) changedFrom: Date | null;
  @Column('bigint', { nullable: true }) net: string | null;
  @Column('bigint', { nullable: true }) peak: string | null;
  @Column('bigint', { nullable: true }) midnight: string | null;
  @Column('timestamptz', { nullable: true }) through: Date | null;
}

/**
 * Activations (a change that makes a subscriber active) per day and the day since which the
 * subscriber was not active, behind the children's summary (migration 1764100800000, ADR 0133).
 */
@Entity('entitlement_activation_counts')
@Index('entitlement_activation_counts_period', { synchronize: false })
@Index('entitlement_activation_counts_unsettled', { synchronize: false })
export class EntitlementActivationCountEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' }) id: string;
  @Column('uuid', { name: 'partner_id' }) partnerId: string;
  @Column('text') environment: string;
  @Column('text') product: string;
  @Column('date') day: string;
  @Column('boolean', { name: 'at_midnight' }) atMidnight: boolean;
  @Column('date', { name: 'since_day' }) sinceDay: string;
  @Column('bigint') count: string;
  @Column('boolean', { default: false }) settled: boolean;
}

export const ENTITLEMENT_ENTITIES = [
  EntitlementEntity,
  EntitlementHistoryEntity,
  PlanMappingEntity,
  EntitlementCountEntity,
  EntitlementDayPeakEntity,
  EntitlementActivationCountEntity,
];

export const ENTITLEMENT_COUNTS = signedCounts('entitlement_counts', ['partner_id', 'environment', 'product', 'measure', 'day']);
export const ENTITLEMENT_ACTIVATION_COUNTS = signedCounts('entitlement_activation_counts', [
  'partner_id',
  'environment',
  'product',
  'day',
  'at_midnight',
  'since_day',
]);
