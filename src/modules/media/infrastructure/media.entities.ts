import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/** The audit log of issued stream URLs (DECISIONS 11); keyed by partner first (DECISIONS 20). */
@Entity('stream_url_issues')
export class StreamUrlIssueEntity {
  @PrimaryColumn('uuid', { name: 'partner_id' }) partnerId: string;
  @PrimaryGeneratedColumn('increment', { type: 'bigint' }) id: string;
  @Column('text') environment: string;
  @Column('text', { name: 'client_id' }) clientId: string;
  @Column('text', { name: 'subscriber_id' }) subscriberId: string;
  @Column('text', { name: 'novel_id' }) novelId: string;
  @Column('integer', { name: 'chapter_number' }) chapterNumber: number;
  @Column('timestamptz', { name: 'issued_at' }) issuedAt: Date;
  @Column('timestamptz', { name: 'expires_at' }) expiresAt: Date;
}

export const MEDIA_ENTITIES = [StreamUrlIssueEntity];
