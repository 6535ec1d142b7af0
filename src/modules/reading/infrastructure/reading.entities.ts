import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';

// The schema is made by the migrations; this mapping mirrors it exactly (names included)
// so that generating a migration from the entities finds nothing to change.
@Entity('novel_progress')
export class NovelProgressEntity {
  @PrimaryColumn('uuid', { name: 'partner_id' }) partnerId: string;
  @PrimaryColumn('text') environment: string;
  @PrimaryColumn('text', { name: 'subscriber_id' }) subscriberId: string;
  @PrimaryColumn('text', { name: 'novel_id' }) novelId: string;
  @Column('timestamptz', { name: 'started_at' }) startedAt: Date;
  @Column('integer', { name: 'current_chapter', default: 1 }) currentChapter: number;
  @Column('timestamptz', { name: 'finished_at', nullable: true }) finishedAt: Date | null;
  @Column('text', { name: 'chosen_choice_id', nullable: true }) chosenChoiceId: string | null;
}

@Entity('chapter_unlock_schedule')
@Index('chapter_unlock_schedule_tenant_due', ['environment', 'partnerId', 'nextUnlockAt'], { where: 'test_clock_id IS NULL' })
@Index('chapter_unlock_schedule_clock_due', ['testClockId', 'nextUnlockAt'], { where: 'test_clock_id IS NOT NULL' })
@Check('chapter_unlock_schedule_environment_check', `environment IN ('live', 'sandbox')`)
@Check('chapter_unlock_schedule_next_chapter_check', `next_chapter >= 2`)
export class ChapterUnlockScheduleEntity {
  @PrimaryColumn('uuid', { name: 'partner_id' }) partnerId: string;
  @PrimaryColumn('text') environment: string;
  @PrimaryColumn('text', { name: 'subscriber_id' }) subscriberId: string;
  @PrimaryColumn('text', { name: 'novel_id' }) novelId: string;
  @Column('timestamptz', { name: 'started_at' }) startedAt: Date;
  @Column('timestamptz', { name: 'not_before' }) notBefore: Date;
  @Column('integer', { name: 'next_chapter' }) nextChapter: number;
  @Column('timestamptz', { name: 'next_unlock_at' }) nextUnlockAt: Date;
  /** The sandbox test clock whose advances announce this row; null: the live job's. */
  @Column('uuid', { name: 'test_clock_id', nullable: true })
  @ForeignKey('TestClockEntity', 'id', { name: 'chapter_unlock_schedule_test_clock_id_fkey', onDelete: 'CASCADE' })
  testClockId: string | null;
}

export const READING_ENTITIES = [NovelProgressEntity, ChapterUnlockScheduleEntity];
