import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';

// The schema is made by the migrations; this mapping mirrors it exactly (names included)
// so that generating a migration from the entities finds nothing to change.
@Entity('novel_progress')
@Index('novel_progress_started', ['partnerId', 'environment', 'startedAt'])
@Index('novel_progress_finished', ['partnerId', 'environment', 'finishedAt'], { where: 'finished_at IS NOT NULL' })
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
@Index('chapter_unlock_schedule_due', ['nextUnlockAt'])
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
}

export const READING_ENTITIES = [NovelProgressEntity, ChapterUnlockScheduleEntity];
