import { Check, Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';

// The schema is made by the migrations; these mappings mirror them exactly (names included)
// so that generating a migration from the entities finds nothing to change.

@Entity('categories')
@Check('categories_environment_check', `environment IN ('live', 'sandbox')`)
export class CategoryEntity {
  @PrimaryColumn('text') environment: string;
  @PrimaryColumn('text') id: string;
  @Column('text') name: string;
  @Column('integer', { name: 'sort_order' }) sortOrder: number;
}

@Entity('novels')
@Index('novels_published_by_title', ['environment', 'title', 'id'], { where: `status = 'published'` })
// A GIN index, which TypeORM cannot describe: declared so that it is left alone.
@Index('novels_tags', { synchronize: false })
@Check('novels_environment_check', `environment IN ('live', 'sandbox')`)
@Check('novels_status_check', `status IN ('published', 'removed')`)
@ForeignKey(() => CategoryEntity, ['environment', 'categoryId'], ['environment', 'id'], { name: 'novels_environment_category_id_fkey' })
export class NovelEntity {
  @PrimaryColumn('text') environment: string;
  @PrimaryColumn('text') id: string;
  @Column('text') title: string;
  @Column('text', { default: '' }) synopsis: string;
  @Column('text', { default: '' }) author: string;
  @Column('text', { name: 'category_id' }) categoryId: string;
  @Column('text', { array: true, default: '{}' }) tags: string[];
  @Column('text') language: string;
  @Column('text', { name: 'cover_url', nullable: true }) coverUrl: string | null;
  @Column('text') status: string;
  @Column('integer', { name: 'total_chapters', default: 0 }) totalChapters: number;
  @Column('boolean', { name: 'has_audio', default: false }) hasAudio: boolean;
  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' }) updatedAt: Date;
}

@Entity('chapters')
@Check('chapters_number_check', `number >= 1`)
@Check('chapters_audio_status_check', `audio_status IN ('pending', 'rendering', 'ready', 'failed')`)
@ForeignKey(() => NovelEntity, ['environment', 'novelId'], ['environment', 'id'], { name: 'chapters_environment_novel_id_fkey', onDelete: 'CASCADE' })
export class ChapterEntity {
  @PrimaryColumn('text') environment: string;
  @PrimaryColumn('text', { name: 'novel_id' }) novelId: string;
  @PrimaryColumn('integer') number: number;
  @Column('text') title: string;
  @Column('text') body: string;
  @Column('integer', { name: 'duration_seconds' }) durationSeconds: number;
  @Column('text', { name: 'audio_status', default: 'pending' }) audioStatus: string;
  @Column('text', { name: 'audio_key', nullable: true }) audioKey: string | null;
  // bigint arrives as a string from pg.
  @Column('bigint', { name: 'audio_bytes', nullable: true }) audioBytes: string | null;
  @Column('integer', { name: 'audio_duration_seconds', nullable: true }) audioDurationSeconds: number | null;
  @Column('integer', { name: 'audio_bitrate_kbps', nullable: true }) audioBitrateKbps: number | null;
}

@Entity('endings')
@ForeignKey(() => NovelEntity, ['environment', 'novelId'], ['environment', 'id'], { name: 'endings_environment_novel_id_fkey', onDelete: 'CASCADE' })
export class EndingEntity {
  @PrimaryColumn('text') environment: string;
  @PrimaryColumn('text', { name: 'novel_id' }) novelId: string;
  @PrimaryColumn('text', { name: 'choice_id' }) choiceId: string;
  @Column('text') label: string;
  @Column('text') ending: string;
  @Column('integer', { name: 'sort_order' }) sortOrder: number;
}

export const CATALOG_ENTITIES = [CategoryEntity, NovelEntity, ChapterEntity, EndingEntity];
