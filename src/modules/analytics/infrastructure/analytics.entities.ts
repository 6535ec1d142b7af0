import { Check, Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { signedCounts } from '../../../shared/persistence/signed-counts.js';

// The schema is made by the migrations; these mappings mirror them exactly (names included)
// so that the schema-drift test checks these tables too. The repositories use plain SQL.

/**
 * Reading activity, one row per chapter read or listened to. The table has no primary key
 * (an append-only log: a key would cost every insert an index entry and refuse repeats),
 * but TypeORM maps no table without one. So this entity names its columns as the key, is
 * never synchronized, and the schema-drift test compares its columns with the table itself.
 */
@Entity({ name: 'reading_activity', synchronize: false })
export class ReadingActivityEntity {
  @PrimaryColumn('uuid', { name: 'partner_id' }) partnerId: string;
  @PrimaryColumn('text') environment: string;
  @PrimaryColumn('text', { name: 'subscriber_id' }) subscriberId: string;
  @PrimaryColumn('text', { name: 'novel_id' }) novelId: string;
  @PrimaryColumn('integer', { name: 'chapter_number' }) chapterNumber: number;
  @PrimaryColumn('text') kind: string;
  @PrimaryColumn('timestamptz', { name: 'occurred_at' }) occurredAt: Date;
}

/** One row per reader and UTC day with activity, kept by a trigger on reading_activity. */
@Entity('reading_reader_days')
// Its INCLUDE columns are beyond what TypeORM describes: declared so that it is left alone.
@Index('reading_reader_days_period', { synchronize: false })
export class ReadingReaderDayEntity {
  @PrimaryColumn('uuid', { name: 'partner_id' }) partnerId: string;
  @PrimaryColumn('text') environment: string;
  @PrimaryColumn('text', { name: 'subscriber_id' }) subscriberId: string;
  @PrimaryColumn('date') day: string;
  @Column('date', { name: 'previous_day' }) previousDay: string;
}

/** One row per reader, chapter and UTC day with activity, kept by the same trigger. */
@Entity('reading_chapter_days')
@Index('reading_chapter_days_period', { synchronize: false })
export class ReadingChapterDayEntity {
  @PrimaryColumn('uuid', { name: 'partner_id' }) partnerId: string;
  @PrimaryColumn('text') environment: string;
  @PrimaryColumn('text', { name: 'subscriber_id' }) subscriberId: string;
  @PrimaryColumn('text', { name: 'novel_id' }) novelId: string;
  @PrimaryColumn('integer', { name: 'chapter_number' }) chapterNumber: number;
  @PrimaryColumn('date') day: string;
  @Column('date', { name: 'previous_day' }) previousDay: string;
}

/**
 * Signed counts per UTC day behind the engagement report, kept by triggers and folded by
 * the compaction job (migration 1764100300000): a key's figure is the sum of its rows.
 */
@Entity('engagement_day_counts')
@Check('engagement_day_counts_measure_check', `measure IN ('readers', 'chapters', 'started', 'finished', 'endings')`)
@Index('engagement_day_counts_period', { synchronize: false })
@Index('engagement_day_counts_unsettled', { synchronize: false })
export class EngagementDayCountEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' }) id: string;
  @Column('uuid', { name: 'partner_id' }) partnerId: string;
  @Column('text') environment: string;
  @Column('text') measure: string;
  @Column('date') day: string;
  @Column('date', { name: 'since_day', default: () => "'-infinity'" }) sinceDay: string;
  @Column('text', { name: 'novel_id', default: '' }) novelId: string;
  @Column('text', { name: 'choice_id', default: '' }) choiceId: string;
  @Column('bigint') count: string;
  @Column('boolean', { default: false }) settled: boolean;
}

/**
 * The day counts summed by UTC month (`month`, its first day), kept by a trigger on the day
 * counts and folded the same way (migration 1764200810000): a report's whole months.
 */
@Entity('engagement_month_counts')
@Check('engagement_month_counts_measure_check', `measure IN ('readers', 'chapters', 'started', 'finished', 'endings')`)
@Check('engagement_month_counts_month_check', `extract(day FROM month) = 1`)
@Index('engagement_month_counts_period', { synchronize: false })
@Index('engagement_month_counts_unsettled', { synchronize: false })
export class EngagementMonthCountEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'ALWAYS' }) id: string;
  @Column('uuid', { name: 'partner_id' }) partnerId: string;
  @Column('text') environment: string;
  @Column('text') measure: string;
  @Column('date') month: string;
  @Column('date', { name: 'since_day', default: () => "'-infinity'" }) sinceDay: string;
  @Column('text', { name: 'novel_id', default: '' }) novelId: string;
  @Column('text', { name: 'choice_id', default: '' }) choiceId: string;
  @Column('bigint') count: string;
  @Column('boolean', { default: false }) settled: boolean;
}

export const ANALYTICS_ENTITIES = [
  ReadingActivityEntity,
  ReadingReaderDayEntity,
  ReadingChapterDayEntity,
  EngagementDayCountEntity,
  EngagementMonthCountEntity,
];

/** The day counts' key, for their folding. */
export const ENGAGEMENT_DAY_COUNTS = signedCounts('engagement_day_counts', [
  'partner_id',
  'environment',
  'measure',
  'day',
  'since_day',
  'novel_id',
  'choice_id',
]);

/** The month counts' key, for their folding. */
export const ENGAGEMENT_MONTH_COUNTS = signedCounts('engagement_month_counts', [
  'partner_id',
  'environment',
  'measure',
  'month',
  'since_day',
  'novel_id',
  'choice_id',
]);
