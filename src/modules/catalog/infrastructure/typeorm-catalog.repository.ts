import { Injectable } from '@nestjs/common';
import { In } from 'typeorm';
import { Db } from '../../../shared/persistence/db.js';
import type { Environment } from '../../../shared/tenancy/tenant.js';
import { NotifiedCache } from '../../../shared/persistence/notified-cache.js';
import { PgNotifications } from '../../../shared/persistence/pg-notifications.js';
import type { Category, Chapter, ChapterNarration, ChapterSummary, Ending, EndingLabels, Novel, NovelPage, NovelQuery } from '../domain/catalog.js';
import type { ManifestCategory, ManifestNovel } from '../domain/catalog-manifest.js';
import { CatalogRepository, type ChapterRecord, type EndingRecord } from '../domain/catalog.repository.js';
import { CategoryEntity, NovelEntity } from './catalog.entities.js';
import { loadCatalogSnapshot, toAudio, type CatalogSnapshot, type ChapterRow } from './catalog-snapshot.js';

/** Carries the environment whose catalog an import changed, sent in the import's transaction. */
const CATALOG_CHANNEL = 'catalog_changed';

/** The novel columns a manifest sets (total_chapters, has_audio and updated_at are derived). */
const NOVEL_COLUMNS = ['title', 'synopsis', 'author', 'category_id', 'tags', 'language', 'cover_url', 'status'];
/** The chapter columns an import sets: the manifest's, and what the media import read from the audio file. */
const CHAPTER_COLUMNS = ['title', 'body', 'duration_seconds', 'audio_status', 'audio_key', 'audio_bytes', 'audio_duration_seconds', 'audio_bitrate_kbps'];
const columnsOf = (columns: readonly string[], prefix: string) => columns.map((column) => prefix + column).join(', ');

/**
 * Reads come from an in-memory snapshot of each environment's published catalog, loaded on
 * first use and dropped on every replica when an import commits (ADR 0123); a chapter's
 * text alone is read from the database. Writes are plain SQL in the caller's transaction.
 */
@Injectable()
export class TypeOrmCatalogRepository extends CatalogRepository {
  private readonly snapshots: NotifiedCache<CatalogSnapshot>;

  constructor(
    private readonly db: Db,
    notifications: PgNotifications,
  ) {
    super();
    this.snapshots = new NotifiedCache(notifications, CATALOG_CHANNEL, (environment) => loadCatalogSnapshot(db, environment as Environment));
  }

  private get novels() {
    return this.db.manager.getRepository(NovelEntity);
  }

  categories(environment: Environment): Promise<Category[]> {
    return this.snapshot(environment).then((catalog) => catalog.categories);
  }

  async findNovels(environment: Environment, query: NovelQuery): Promise<NovelPage> {
    return (await this.snapshot(environment)).findNovels(query);
  }

  async publishedNovel(environment: Environment, novelId: string): Promise<Novel | null> {
    return (await this.snapshot(environment)).novel(novelId);
  }

  async publishedNovels(environment: Environment, novelIds: readonly string[]): Promise<Novel[]> {
    const catalog = await this.snapshot(environment);
    return novelIds.map((id) => catalog.novel(id)).filter((novel) => novel !== null);
  }

  async chapters(environment: Environment, novelId: string): Promise<ChapterSummary[]> {
    return (await this.snapshot(environment)).chapters(novelId);
  }

  async chapter(environment: Environment, novelId: string, number: number): Promise<Chapter | null> {
    // The text is not kept in memory (it is most of a catalog's size): read it with the chapter.
    const [row] = await this.db.query<ChapterWithTextRow>(
      `SELECT novel_id, number, title, duration_seconds, body, audio_status, audio_key, audio_bytes, audio_duration_seconds, audio_bitrate_kbps
         FROM chapters WHERE environment = $1 AND novel_id = $2 AND number = $3`,
      [environment, novelId, number],
    );
    return row ? toChapter(row) : null;
  }

  async publishedNarration(environment: Environment, novelId: string, number: number): Promise<{ novel: Novel; narration: ChapterNarration | null } | null> {
    const catalog = await this.snapshot(environment);
    const novel = catalog.novel(novelId);
    return novel && { novel, narration: catalog.narration(novelId, number) };
  }

  async narrations(environment: Environment, novelId: string): Promise<ChapterNarration[]> {
    return (await this.snapshot(environment)).narrations(novelId);
  }

  async endings(environment: Environment, novelId: string): Promise<Ending[]> {
    return (await this.snapshot(environment)).endings(novelId);
  }

  async endingLabels(environment: Environment): Promise<EndingLabels> {
    return (await this.snapshot(environment)).endingLabels;
  }

  async announceChange(environment: Environment): Promise<void> {
    await this.db.query(`SELECT pg_notify($1, $2)`, [CATALOG_CHANNEL, environment]);
    // This process need not wait for its own notification; other replicas get it at commit.
    this.snapshots.invalidate(environment);
  }

  private snapshot(environment: Environment): Promise<CatalogSnapshot> {
    return this.snapshots.get(environment);
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

interface ChapterWithTextRow extends ChapterRow {
  body: string;
}

function toChapter(row: ChapterWithTextRow): Chapter {
  return {
    novelId: row.novel_id,
    number: row.number,
    title: row.title,
    durationSeconds: row.duration_seconds,
    body: row.body,
    audio: toAudio(row),
  };
}

const distinct = (values: string[]) => [...new Set(values)];
