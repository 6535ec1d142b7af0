import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { Db } from '../../../shared/persistence/db.js';
import type { Environment } from '../../../shared/tenancy/tenant.js';
import type { AudioStatus, Category, Chapter, ChapterAudio, ChapterNarration, ChapterSummary, Ending, Novel, NovelPage, NovelQuery } from '../domain/catalog.js';
import type { ManifestCategory, ManifestNovel } from '../domain/catalog-manifest.js';
import { CatalogRepository, type ChapterRecord, type EndingRecord } from '../domain/catalog.repository.js';
import { CategoryEntity, EndingEntity, NovelEntity } from './catalog.entities.js';

/** The novel columns a manifest sets (total_chapters, has_audio and updated_at are derived). */
const NOVEL_COLUMNS = ['title', 'synopsis', 'author', 'category_id', 'tags', 'language', 'cover_url', 'status'];
/** The chapter columns an import sets: the manifest's, and what the media import read from the audio file. */
const CHAPTER_COLUMNS = ['title', 'body', 'duration_seconds', 'audio_status', 'audio_key', 'audio_bytes', 'audio_duration_seconds', 'audio_bitrate_kbps'];
const columnsOf = (columns: readonly string[], prefix: string) => columns.map((column) => prefix + column).join(', ');

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
    const parameters: unknown[] = [environment];
    let filters = '';
    if (query.categoryId !== undefined) filters += ` AND category_id = $${parameters.push(query.categoryId)}`;
    // @> rather than ANY() so that the GIN index on tags serves the filter.
    if (query.tag !== undefined) filters += ` AND tags @> ARRAY[$${parameters.push(query.tag)}]::text[]`;
    if (query.hasAudio !== undefined) filters += ` AND has_audio = $${parameters.push(query.hasAudio)}`;
    const limit = `$${parameters.push(query.pageSize)}`;
    const offset = `$${parameters.push((query.page - 1) * query.pageSize)}`;
    // The page and the total in one statement: one row per novel of the page, each with
    // the total, or a single row with the total and no novel when the page is empty.
    const rows = await this.db.query<NovelRow & { total: number }>(
      `SELECT t.total, p.*
         FROM (SELECT count(*)::int AS total FROM novels WHERE environment = $1 AND status = 'published'${filters}) AS t
         LEFT JOIN LATERAL (
           SELECT ${NOVEL_SELECT} FROM novels
            WHERE environment = $1 AND status = 'published'${filters}
            ORDER BY title, id LIMIT ${limit} OFFSET ${offset}) AS p ON true
        ORDER BY p.title, p.id`,
      parameters,
    );
    return { novels: rows.filter((row) => row.id !== null).map(toNovel), total: rows[0]?.total ?? 0 };
  }

  async publishedNovel(environment: Environment, novelId: string): Promise<Novel | null> {
    const [row] = await this.db.query<NovelRow>(`SELECT ${NOVEL_SELECT} FROM novels WHERE environment = $1 AND id = $2 AND status = 'published'`, [
      environment,
      novelId,
    ]);
    return row ? toNovel(row) : null;
  }

  async publishedNovels(environment: Environment, novelIds: readonly string[]): Promise<Novel[]> {
    if (novelIds.length === 0) return [];
    const rows = await this.db.query<NovelRow>(`SELECT ${NOVEL_SELECT} FROM novels WHERE environment = $1 AND id = ANY ($2::text[]) AND status = 'published'`, [
      environment,
      [...novelIds],
    ]);
    return rows.map(toNovel);
  }

  async chapters(environment: Environment, novelId: string): Promise<ChapterSummary[]> {
    return this.db.query<ChapterSummary>(
      `SELECT number, title, duration_seconds AS "durationSeconds" FROM chapters WHERE environment = $1 AND novel_id = $2 ORDER BY number`,
      [environment, novelId],
    );
  }

  async chapter(environment: Environment, novelId: string, number: number): Promise<Chapter | null> {
    const [row] = await this.db.query<ChapterRow>(
      `SELECT novel_id, number, title, duration_seconds, body, audio_status, audio_key, audio_bytes, audio_duration_seconds, audio_bitrate_kbps
         FROM chapters WHERE environment = $1 AND novel_id = $2 AND number = $3`,
      [environment, novelId, number],
    );
    return row ? toChapter(row) : null;
  }

  async publishedNarration(environment: Environment, novelId: string, number: number): Promise<{ novel: Novel; narration: ChapterNarration | null } | null> {
    // One round trip on the stream endpoint's path, and never the chapter's text.
    const [row] = await this.db.query<NovelRow & Partial<NarrationRow>>(
      `SELECT ${NOVEL_SELECT_AS_N}, ${NARRATION_SELECT_AS_C}
         FROM novels n
         LEFT JOIN chapters c ON c.environment = n.environment AND c.novel_id = n.id AND c.number = $3
        WHERE n.environment = $1 AND n.id = $2 AND n.status = 'published'`,
      [environment, novelId, number],
    );
    if (!row) return null;
    return { novel: toNovel(row), narration: row.number == null ? null : toNarration(row as NarrationRow) };
  }

  async narrations(environment: Environment, novelId: string): Promise<ChapterNarration[]> {
    const rows = await this.db.query<NarrationRow>(
      `SELECT ${NARRATION_SELECT_AS_C} FROM chapters c WHERE c.environment = $1 AND c.novel_id = $2 ORDER BY c.number`,
      [environment, novelId],
    );
    return rows.map(toNarration);
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
      `INSERT INTO novels (environment, id, ${columnsOf(NOVEL_COLUMNS, '')})
       SELECT $1, n.id, ${columnsOf(NOVEL_COLUMNS, 'n.')}
         FROM jsonb_to_recordset($2::jsonb)
           AS n(id text, title text, synopsis text, author text, category_id text, tags text[], language text, cover_url text, status text)
       ON CONFLICT (environment, id) DO UPDATE SET ${NOVEL_COLUMNS.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}
         WHERE (${columnsOf(NOVEL_COLUMNS, 'novels.')}) IS DISTINCT FROM (${columnsOf(NOVEL_COLUMNS, 'EXCLUDED.')})
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
      audio_status: c.audio.status,
      audio_key: c.audio.key,
      audio_bytes: c.audio.bytes,
      audio_duration_seconds: c.audio.durationSeconds,
      audio_bitrate_kbps: c.audio.bitrateKbps,
    }));
    const rows = await this.db.query<{ novel_id: string }>(
      `INSERT INTO chapters (environment, novel_id, number, ${columnsOf(CHAPTER_COLUMNS, '')})
       SELECT $1, c.novel_id, c.number, ${columnsOf(CHAPTER_COLUMNS, 'c.')}
         FROM jsonb_to_recordset($2::jsonb)
           AS c(novel_id text, number integer, title text, body text, duration_seconds integer, audio_status text,
                audio_key text, audio_bytes bigint, audio_duration_seconds integer, audio_bitrate_kbps integer)
       ON CONFLICT (environment, novel_id, number) DO UPDATE SET ${CHAPTER_COLUMNS.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}
         WHERE (${columnsOf(CHAPTER_COLUMNS, 'chapters.')}) IS DISTINCT FROM (${columnsOf(CHAPTER_COLUMNS, 'EXCLUDED.')})
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

/**
 * The hot reads are plain SQL: building them with TypeORM's query builder and mapping its
 * aliased results cost more CPU than PostgreSQL spent answering them (`npm run bench -- --profile`).
 */
const NOVEL_SELECT = `id, title, synopsis, author, category_id, tags, language, cover_url, total_chapters, has_audio, updated_at`;

interface NovelRow {
  id: string;
  title: string;
  synopsis: string;
  author: string;
  category_id: string;
  tags: string[];
  language: string;
  cover_url: string | null;
  total_chapters: number;
  has_audio: boolean;
  updated_at: Date;
}

function toNovel(row: NovelRow): Novel {
  return {
    id: row.id,
    title: row.title,
    synopsis: row.synopsis,
    author: row.author,
    categoryId: row.category_id,
    tags: row.tags,
    language: row.language,
    coverUrl: row.cover_url,
    totalChapters: row.total_chapters,
    hasAudio: row.has_audio,
    updatedAt: row.updated_at,
  };
}

interface ChapterRow extends AudioRow {
  novel_id: string;
  number: number;
  title: string;
  duration_seconds: number;
  body: string;
}

function toChapter(row: ChapterRow): Chapter {
  return {
    novelId: row.novel_id,
    number: row.number,
    title: row.title,
    durationSeconds: row.duration_seconds,
    body: row.body,
    audio: toAudio(row),
  };
}

/** A chapter's audio columns, as selected from `chapters c`. */
const AUDIO_COLUMNS = ['audio_status', 'audio_key', 'audio_bytes', 'audio_duration_seconds', 'audio_bitrate_kbps'];
const NARRATION_SELECT_AS_C = ['number', ...AUDIO_COLUMNS].map((column) => `c.${column}`).join(', ');
const NOVEL_SELECT_AS_N = NOVEL_SELECT.split(', ').map((column) => `n.${column}`).join(', ');

interface AudioRow {
  audio_status: string;
  audio_key: string | null;
  // bigint arrives as a string from pg.
  audio_bytes: string | null;
  audio_duration_seconds: number | null;
  audio_bitrate_kbps: number | null;
}

interface NarrationRow extends AudioRow {
  number: number;
}

const toNarration = (row: NarrationRow): ChapterNarration => ({ number: row.number, audio: toAudio(row) });

function toAudio(row: AudioRow): ChapterAudio {
  return {
    status: row.audio_status as AudioStatus,
    key: row.audio_key,
    bytes: row.audio_bytes === null ? null : Number(row.audio_bytes),
    durationSeconds: row.audio_duration_seconds,
    bitrateKbps: row.audio_bitrate_kbps,
  };
}

const distinct = (values: string[]) => [...new Set(values)];
