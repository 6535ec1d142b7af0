import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

@Entity('entitlements')
export class EntitlementEntity {
  @PrimaryColumn('uuid', { name: 'partner_id' }) partnerId: string;
  @PrimaryColumn('text') environment: string;
  @PrimaryColumn('text', { name: 'subscriber_id' }) subscriberId: string;
  @PrimaryColumn('text') product: string;
  @Column('text') status: string;
  @Column('text', { name: 'partner_plan', nullable: true }) partnerPlan: string | null;
  @Column('text', { name: 'internal_plan' }) internalPlan: string;
  @Column('timestamptz', { name: 'created_at', default: () => 'now()' }) createdAt: Date;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt: Date;
}

@Entity('entitlement_history')
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
}

@Entity('plan_mappings')
export class PlanMappingEntity {
  @PrimaryColumn('uuid', { name: 'partner_id' }) partnerId: string;
  @PrimaryColumn('text', { name: 'partner_plan' }) partnerPlan: string;
  @Column('text', { name: 'internal_plan' }) internalPlan: string;
}

export const ENTITLEMENT_ENTITIES = [EntitlementEntity, EntitlementHistoryEntity, PlanMappingEntity];
