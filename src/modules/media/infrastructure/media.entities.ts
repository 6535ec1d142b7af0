import { Check, Column, Entity, Index, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/**
 * The audit log of issued stream URLs (DECISIONS 11); keyed by partner first (DECISIONS 20).
 * Mirrors its migration exactly, so a generated migration finds nothing to change; the
 * table is partitioned by month of issued_at, its partitions have no entity of their own.
 */
@Entity('stream_url_issues')
@Index('stream_url_issues_by_subscriber', ['partnerId', 'environment', 'subscriberId', 'issuedAt'])
@Check('stream_url_issues_environment_check', `environment IN ('live', 'sandbox')`)
@Check('stream_url_issues_chapter_number_check', `chapter_number >= 1`)
@Check('stream_url_issues_check', `expires_at > issued_at`)
export class StreamUrlIssueEntity {
  @PrimaryColumn('uuid', { name: 'partner_id' }) partnerId: string;
  @PrimaryGeneratedColumn('increment', { type: 'bigint' }) id: string;
  @Column('text') environment: string;
  @Column('text', { name: 'client_id' }) clientId: string;
  @Column('text', { name: 'subscriber_id' }) subscriberId: string;
  @Column('text', { name: 'novel_id' }) novelId: string;
  @Column('integer', { name: 'chapter_number' }) chapterNumber: number;
  // In the key because the table is partitioned by it (PostgreSQL requires it of unique keys).
  @PrimaryColumn('timestamptz', { name: 'issued_at' }) issuedAt: Date;
  @Column('timestamptz', { name: 'expires_at' }) expiresAt: Date;
}

export const MEDIA_ENTITIES = [StreamUrlIssueEntity];
