import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';

// The schema is made by the migrations; this mapping mirrors it exactly (names included)
// so that the schema-drift test checks this table too. The repository uses plain SQL.

/** Children's reading activity, loaded by `kids:import`. */
@Entity('kids_activity')
// Its INCLUDE columns are beyond what TypeORM describes: declared so that it is left alone.
@Index('kids_activity_period', { synchronize: false })
@Index('kids_activity_completions', ['partnerId', 'environment', 'completedAt'], { where: 'completed_at IS NOT NULL' })
@Check('kids_activity_environment_check', `environment IN ('live', 'sandbox')`)
@Check('kids_activity_minutes_check', `minutes >= 0`)
export class KidsActivityEntity {
  @PrimaryColumn('uuid', { name: 'partner_id' })
  @ForeignKey('PartnerEntity', 'id', { name: 'kids_activity_partner_id_fkey' })
  partnerId: string;
  @PrimaryColumn('text') environment: string;
  @PrimaryColumn('text', { name: 'account_id' }) accountId: string;
  @PrimaryColumn('text', { name: 'child_ref' }) childRef: string;
  @PrimaryColumn('text', { name: 'story_id' }) storyId: string;
  @PrimaryColumn('timestamptz', { name: 'occurred_at' }) occurredAt: Date;
  @Column('numeric', { precision: 6, scale: 2 }) minutes: string;
  @Column('timestamptz', { name: 'completed_at', nullable: true }) completedAt: Date | null;
  @Column('timestamptz', { name: 'imported_at', default: () => 'now()' }) importedAt: Date;
}

export const KIDS_ENGAGEMENT_ENTITIES = [KidsActivityEntity];
