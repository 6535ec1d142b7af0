import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('playback_positions')
export class PlaybackPositionEntity {
  @PrimaryColumn('uuid', { name: 'partner_id' }) partnerId: string;
  @PrimaryColumn('text') environment: string;
  @PrimaryColumn('text', { name: 'subscriber_id' }) subscriberId: string;
  @PrimaryColumn('text', { name: 'novel_id' }) novelId: string;
  @Column('integer', { name: 'chapter_number' }) chapterNumber: number;
  @Column('integer', { name: 'position_seconds' }) positionSeconds: number;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt: Date;
}

export const PLAYBACK_ENTITIES = [PlaybackPositionEntity];
