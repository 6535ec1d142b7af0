import { Column, Entity, PrimaryColumn } from 'typeorm';

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

export const READING_ENTITIES = [NovelProgressEntity];
