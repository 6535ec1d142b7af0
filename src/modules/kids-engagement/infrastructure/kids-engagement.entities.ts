import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { signedCounts } from '../../../shared/persistence/signed-counts.js';

// The schema is made by the migrations; this mapping mirrors it exactly (names included)
// so that the schema-drift test checks this table too. The repository uses plain SQL.

/** Children's reading activity, loaded by `kids:import`. */
@Entity('kids_activity')
// Their INCLUDE columns are beyond what TypeORM describes: declared so that they are left alone.
@Index('kids_activity_entitled_occurrences', { synchronize: false })
@Index('kids_activity_entitled_completions', { synchronize: false })
@Index('kids_activity_unentitled_occurrences', ['partnerId', 'environment', 'occurredAt'], { where: 'NOT entitled_at_occurrence' })
@Index('kids_activity_unentitled_completions', ['partnerId', 'environment', 'completedAt'], {
  where: 'completed_at IS NOT NULL AND NOT entitled_at_completion',
})
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
  /** Whether the account held kidsapp at `occurred_at`; kept by triggers (migration 1764100800000, ADR 0133). */
  @Column('boolean', { name: 'entitled_at_occurrence', default: false }) entitledAtOccurrence: boolean;
  /** Whether it held kidsapp at `completed_at` (false without one). */
  @Column('boolean', { name: 'entitled_at_completion', default: false }) entitledAtCompletion: boolean;
}

/** Minutes and completions per day of the sessions of entitled accounts, signed (ADR 0129, 0133). */
@Entity('kids_day_counts')
@Index('kids_day_counts_period', { synchronize: false })
@Index('kids_day_counts_unsettled', { synchronize: false })
@Check('kids_day_counts_measure_check', `measure IN ('minutes', 'completions')`)
export class KidsDayCountEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' }) id: string;
  @Column('uuid', { name: 'partner_id' }) partnerId: string;
  @Column('text') environment: string;
  @Column('text') measure: string;
  @Column('date') day: string;
  @Column('numeric') count: string;
  @Column('boolean', { default: false }) settled: boolean;
}

/**
 * Each month's children's figures, fixed the first time an answer covered the month (ADR
 * 0135). Partner-wide aggregates: no account or child in them, so not subscriber rows.
 */
@Entity('kids_fixed_months')
@Check('kids_fixed_months_environment_check', `environment IN ('live', 'sandbox')`)
@Check('kids_fixed_months_month_check', `EXTRACT(day FROM month) = 1`)
@Check('kids_fixed_months_spans_check', `cardinality(active_accounts_over_months) = 12`)
export class KidsFixedMonthEntity {
  @PrimaryColumn('uuid', { name: 'partner_id' })
  @ForeignKey('PartnerEntity', 'id', { name: 'kids_fixed_months_partner_id_fkey' })
  partnerId: string;
  @PrimaryColumn('text') environment: string;
  /** The month's first day. */
  @PrimaryColumn('date') month: string;
  /** `[k]` (from 1 in SQL): accounts entitled at some instant of the k months ending with this one. */
  @Column('integer', { name: 'active_accounts_over_months', array: true }) activeAccountsOverMonths: number[];
  /** Counted up to the threshold (30): only whether it is reached matters. */
  @Column('integer', { name: 'accounts_with_activity' }) accountsWithActivity: number;
  @Column('integer', { name: 'stories_completed' }) storiesCompleted: number;
  @Column('numeric', { name: 'minutes_read' }) minutesRead: string;
  @Column('timestamptz', { name: 'fixed_at', default: () => 'now()' }) fixedAt: Date;
}

export const KIDS_ENGAGEMENT_ENTITIES = [KidsActivityEntity, KidsDayCountEntity, KidsFixedMonthEntity];

export const KIDS_DAY_COUNTS = signedCounts('kids_day_counts', ['partner_id', 'environment', 'measure', 'day']);
