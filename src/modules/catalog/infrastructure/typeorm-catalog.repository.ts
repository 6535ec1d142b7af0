import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { Db } from '../../../shared/persistence/typeorm-unit-of-work.js';
import type { Environment } from '../../../shared/tenancy/tenant.js';
import type { AudioStatus, Category, Chapter, ChapterSummary, Ending, Novel, NovelPage, NovelQuery } from '../domain/catalog.js';
import type { ManifestCategory, ManifestNovel } from '../domain/catalog-manifest.js';
import { CatalogRepository, type ChapterRecord, type EndingRecord } from '../domain/catalog.repository.js';
import { CategoryEntity, ChapterEntity, EndingEntity, NovelEntity } from './catalog.entities.js';

const PUBLISHED = 'published';

/** The novel columns a manifest sets (total_chapters, has_audio and updated_at are derived). */
const NOVEL_COLUMNS = ['title', 'synopsis', 'author', 'category_id', 'tags', 'language', 'cover_url', 'status'];
const columnList = (prefix: string) => NOVEL_COLUMNS.map((column) => prefix + column).join(', ');

@Injectable()
export class TypeOrmCatalogRepository extends CatalogRepository {
  constructor(private readonly db: Db) {
    super();
  }

  private get novels() {
    return this.db.manager.getRepository(NovelEntity);
  }

  async categories(environment: Environment): Promise<Category[]> {
    const rows = await this.db.manager.getRepository(CategoryEntity).find({ where: { environment }, order: { sortOrder: 'ASC', id: 'ASC' } });
    return rows.map(({ id, name, sortOrder }) => ({ id, name, sortOrder }));
  }

  async findNovels(environment: Environment, query: NovelQuery): Promise<NovelPage> {
    const builder = this.novels
      .createQueryBuilder('n')
      .where('n.environment = :environment AND n.status = :status', { environment, status: PUBLISHED });
    if (query.categoryId !== undefined) builder.andWhere('n.category_id = :categoryId', { categoryId: query.categoryId });
    // @> rather than ANY() so that the GIN index on tags serves the filter.
    if (query.tag !== undefined) builder.andWhere('n.tags @> ARRAY[:tag]::text[]', { tag: query.tag });
    if (query.hasAudio !== undefined) builder.andWhere('n.has_audio = :hasAudio', { hasAudio: query.hasAudio });
    const [rows, total] = await builder
      .orderBy('n.title', 'ASC')
      .addOrderBy('n.id', 'ASC')
      .offset((query.page - 1) * query.pageSize)
      .limit(query.pageSize)
      .getManyAndCount();
    return { novels: rows.map(toNovel), total };
  }

  async publishedNovel(environment: Environment, novelId: string): Promise<Novel | null> {
    const row = await this.novels.findOneBy({ environment, id: novelId, status: PUBLISHED });
    return row ? toNovel(row) : null;
  }

  async publishedNovels(environment: Environment, novelIds: readonly string[]): Promise<Novel[]> {
    if (novelIds.length === 0) return [];
    const rows = await this.novels.findBy({ environment, id: In([...novelIds]), status: PUBLISHED });
    return rows.map(toNovel);
  }

  async chapters(environment: Environment, novelId: string): Promise<ChapterSummary[]> {
    const rows = await this.db.manager.getRepository(ChapterEntity).find({
      select: { number: true, title: true, durationSeconds: true },
      where: { environment, novelId },
      order: { number: 'ASC' },
    });
    return rows.map(({ number, title, durationSeconds }) => ({ number, title, durationSeconds }));
  }

  async chapter(environment: Environment, novelId: string, number: number): Promise<Chapter | null> {
    const row = await this.db.manager.getRepository(ChapterEntity).findOneBy({ environment, novelId, number });
    return row ? toChapter(row) : null;
  }

  async endings(environment: Environment, novelId: string): Promise<Ending[]> {
    const rows = await this.db.manager.getRepository(EndingEntity).find({ where: { environment, novelId }, order: { sortOrder: 'ASC', choiceId: 'ASC' } });
    return rows.map(({ choiceId, label, ending, sortOrder }) => ({ choiceId, label, ending, sortOrder }));
  }

  async lockForWriting(environment: Environment): Promise<void> {
    await this.db.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`catalog:${environment}`]);
  }

  async hasNovels(environment: Environment): Promise<boolean> {
    return this.novels.existsBy({ environment });
  }

  async existingCategoryIds(environment: Environment, ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.manager.getRepository(CategoryEntity).findBy({ environment, id: In([...ids]) });
    return rows.map((row) => row.id);
  }

  async upsertCategories(environment: Environment, categories: readonly ManifestCategory[]): Promise<number> {
    if (categories.length === 0) return 0;
    const rows = await this.db.query(
      `INSERT INTO categories (environment, id, name, sort_order)
       SELECT $1, c.id, c.name, c.sort_order
         FROM jsonb_to_recordset($2::jsonb) AS c(id text, name text, sort_order integer)
       ON CONFLICT (environment, id) DO UPDATE SET name = EXCLUDED.name, sort_order = EXCLUDED.sort_order
         WHERE (categories.name, categories.sort_order) IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.sort_order)
       RETURNING 1`,
      [environment, JSON.stringify(categories.map((c) => ({ id: c.id, name: c.name, sort_order: c.sortOrder })))],
    );
    return rows.length;
  }

  async upsertNovels(environment: Environment, novels: readonly ManifestNovel[]): Promise<string[]> {
    if (novels.length === 0) return [];
    const records = novels.map((n) => ({
      id: n.id,
      title: n.title,
      synopsis: n.synopsis,
      author: n.author,
      category_id: n.categoryId,
      tags: n.tags,
      language: n.language,
      cover_url: n.coverUrl,
      status: n.status,
    }));
    const rows = await this.db.query<{ id: string }>(
      `INSERT INTO novels (environment, id, ${columnList('')})
       SELECT $1, n.id, ${columnList('n.')}
         FROM jsonb_to_recordset($2::jsonb)
           AS n(id text, title text, synopsis text, author text, category_id text, tags text[], language text, cover_url text, status text)
       ON CONFLICT (environment, id) DO UPDATE SET ${NOVEL_COLUMNS.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}
         WHERE (${columnList('novels.')}) IS DISTINCT FROM (${columnList('EXCLUDED.')})
       RETURNING id`,
      [environment, JSON.stringify(records)],
    );
    return rows.map((row) => row.id);
  }

  async upsertChapters(environment: Environment, chapters: readonly ChapterRecord[]): Promise<string[]> {
    if (chapters.length === 0) return [];
    const records = chapters.map((c) => ({
      novel_id: c.novelId,
      number: c.number,
      title: c.title,
      body: c.body,
      duration_seconds: c.durationSeconds,
      audio_status: audioStatusOf(c),
    }));
    // The stored audio file's fields (audio_key, bytes, duration, bitrate) belong to the media import and are left alone.
    const rows = await this.db.query<{ novel_id: string }>(
      `INSERT INTO chapters (environment, novel_id, number, title, body, duration_seconds, audio_status)
       SELECT $1, c.novel_id, c.number, c.title, c.body, c.duration_seconds, c.audio_status
         FROM jsonb_to_recordset($2::jsonb)
           AS c(novel_id text, number integer, title text, body text, duration_seconds integer, audio_status text)
       ON CONFLICT (environment, novel_id, number) DO UPDATE
         SET title = EXCLUDED.title, body = EXCLUDED.body, duration_seconds = EXCLUDED.duration_seconds, audio_status = EXCLUDED.audio_status
         WHERE (chapters.title, chapters.body, chapters.duration_seconds, chapters.audio_status)
           IS DISTINCT FROM (EXCLUDED.title, EXCLUDED.body, EXCLUDED.duration_seconds, EXCLUDED.audio_status)
       RETURNING novel_id`,
      [environment, JSON.stringify(records)],
    );
    return distinct(rows.map((row) => row.novel_id));
  }

  async upsertEndings(environment: Environment, endings: readonly EndingRecord[]): Promise<string[]> {
    if (endings.length === 0) return [];
    const records = endings.map((e) => ({ novel_id: e.novelId, choice_id: e.choiceId, label: e.label, ending: e.ending, sort_order: e.sortOrder }));
    const rows = await this.db.query<{ novel_id: string }>(
      `INSERT INTO endings (environment, novel_id, choice_id, label, ending, sort_order)
       SELECT $1, e.novel_id, e.choice_id, e.label, e.ending, e.sort_order
         FROM jsonb_to_recordset($2::jsonb) AS e(novel_id text, choice_id text, label text, ending text, sort_order integer)
       ON CONFLICT (environment, novel_id, choice_id) DO UPDATE
         SET label = EXCLUDED.label, ending = EXCLUDED.ending, sort_order = EXCLUDED.sort_order
         WHERE (endings.label, endings.ending, endings.sort_order) IS DISTINCT FROM (EXCLUDED.label, EXCLUDED.ending, EXCLUDED.sort_order)
       RETURNING novel_id`,
      [environment, JSON.stringify(records)],
    );
    return distinct(rows.map((row) => row.novel_id));
  }

  async deleteStaleContent(environment: Environment, novels: readonly ManifestNovel[]): Promise<string[]> {
    if (novels.length === 0) return [];
    const wanted = novels.map((n) => ({ id: n.id, total: n.chapters.length, choices: n.endings.map((e) => e.choiceId) }));
    // Chapters are numbered 1..total, so a stale chapter is one numbered beyond the new total.
    const rows = await this.db.query<{ novel_id: string }>(
      `WITH wanted AS (SELECT * FROM jsonb_to_recordset($2::jsonb) AS w(id text, total integer, choices text[])),
            stale_chapters AS (
              DELETE FROM chapters c USING wanted w
               WHERE c.environment = $1 AND c.novel_id = w.id AND c.number > w.total
              RETURNING c.novel_id),
            stale_endings AS (
              DELETE FROM endings e USING wanted w
               WHERE e.environment = $1 AND e.novel_id = w.id AND NOT (e.choice_id = ANY (w.choices))
              RETURNING e.novel_id)
       SELECT novel_id FROM stale_chapters UNION SELECT novel_id FROM stale_endings`,
      [environment, JSON.stringify(wanted)],
    );
    return rows.map((row) => row.novel_id);
  }

  async refreshNovels(environment: Environment, novelIds: readonly string[], changedIds: readonly string[]): Promise<void> {
    if (novelIds.length === 0) return;
    await this.db.query(
      `UPDATE novels n
          SET total_chapters = s.total,
              has_audio = s.all_ready,
              updated_at = CASE WHEN n.id = ANY ($3::text[]) THEN now() ELSE n.updated_at END
         FROM (SELECT novel_id, count(*)::integer AS total, bool_and(audio_status = 'ready') AS all_ready
                 FROM chapters WHERE environment = $1 AND novel_id = ANY ($2::text[]) GROUP BY novel_id) s
        WHERE n.environment = $1 AND n.id = s.novel_id`,
      [environment, [...novelIds], [...changedIds]],
    );
  }
}

function toNovel(row: NovelEntity): Novel {
  return {
    id: row.id,
    title: row.title,
    synopsis: row.synopsis,
    author: row.author,
    categoryId: row.categoryId,
    tags: row.tags,
    language: row.language,
    coverUrl: row.coverUrl,
    totalChapters: row.totalChapters,
    hasAudio: row.hasAudio,
    updatedAt: row.updatedAt,
  };
}

function toChapter(row: ChapterEntity): Chapter {
  return {
    novelId: row.novelId,
    number: row.number,
    title: row.title,
    durationSeconds: row.durationSeconds,
    body: row.body,
    audio: {
      status: row.audioStatus as AudioStatus,
      key: row.audioKey,
      bytes: row.audioBytes === null ? null : Number(row.audioBytes),
      durationSeconds: row.audioDurationSeconds,
      bitrateKbps: row.audioBitrateKbps,
    },
  };
}

/** A chapter without audio in the manifest has none to render yet. */
const audioStatusOf = (chapter: ChapterRecord): AudioStatus => chapter.audio?.status ?? 'pending';

const distinct = (values: string[]) => [...new Set(values)];
