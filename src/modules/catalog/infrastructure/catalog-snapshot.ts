import { bounded } from '../../../shared/memo.js';
import type { Db } from '../../../shared/persistence/db.js';
import type { Environment } from '../../../shared/tenancy/tenant.js';
import type {
  AudioStatus,
  Category,
  ChapterAudio,
  ChapterNarration,
  ChapterSummary,
  Ending,
  EndingLabel,
  EndingLabels,
  Novel,
  NovelPage,
  NovelQuery,
} from '../domain/catalog.js';

/**
 * A novel's chapters as kept in memory, without their text (it can be large and is read
 * chapter by chapter), in the two shapes the readers ask for, in chapter order: chapter n
 * is at index n - 1 (chapters are numbered 1..total without gaps).
 */
interface CachedChapters {
  summaries: ChapterSummary[];
  narrations: ChapterNarration[];
}

const NO_CHAPTERS: CachedChapters = { summaries: [], narrations: [] };

/**
 * Catalog pages a snapshot keeps, the most recently asked for: the first pages of the
 * catalog are read far more than the rest, and every page of a hostile crawl (each page
 * size, filter and page number) must not be kept: 256 pages of 100 entries are about 150 KB
 * here, and their JSON, kept beside them by the HTTP layer, about 15 MB.
 */
const PAGES_KEPT = 256;

/** A query as a map key: the category id's length keeps it from running into the tag. */
const pageKey = (q: NovelQuery) =>
  `${q.page} ${q.pageSize} ${q.hasAudio} ${q.categoryId === undefined ? '' : `${q.categoryId.length}:${q.categoryId}`} ${q.tag === undefined ? '' : `:${q.tag}`}`;

/**
 * One environment's published catalog in memory: categories, novels, chapter metadata and
 * endings. Removed novels are not loaded, so nothing here can serve one; only the ending
 * labels, kept apart for reports, include theirs. Orders are the database's (ORDER BY at
 * load), so collation-sensitive sorts (titles) match the SQL ones. Shared by every request:
 * callers must not change what it returns.
 */
export class CatalogSnapshot {
  private readonly novelsById: Map<string, Novel>;
  /** Pages by query: the same object for the same query, while the snapshot lasts; a crawl of every query cannot grow it. */
  private readonly pages = bounded('catalog.pages', 'lru', PAGES_KEPT, (_key: string, query: NovelQuery) => this.pageOf(query));

  constructor(
    readonly categories: Category[],
    /** Published novels by title, then id. */
    private readonly novels: readonly Novel[],
    private readonly chaptersByNovel: ReadonlyMap<string, CachedChapters>,
    private readonly endingsByNovel: ReadonlyMap<string, Ending[]>,
    /** Every ending's label, removed novels included: for reports, never to serve a novel. */
    readonly endingLabels: EndingLabels,
  ) {
    this.novelsById = new Map(novels.map((novel) => [novel.id, novel]));
  }

  novel(id: string): Novel | null {
    return this.novelsById.get(id) ?? null;
  }

  /** The page asked for, the same object for the same query while the snapshot lasts. */
  findNovels(query: NovelQuery): NovelPage {
    return this.pages.get(pageKey(query), query);
  }

  private pageOf(query: NovelQuery): NovelPage {
    const unfiltered = query.categoryId === undefined && query.tag === undefined && query.hasAudio === undefined;
    const matching = unfiltered
      ? this.novels
      : this.novels.filter(
          (n) =>
            (query.categoryId === undefined || n.categoryId === query.categoryId) &&
            (query.tag === undefined || n.tags.includes(query.tag)) &&
            (query.hasAudio === undefined || n.hasAudio === query.hasAudio),
        );
    const start = (query.page - 1) * query.pageSize;
    return { novels: matching.slice(start, start + query.pageSize), total: matching.length, page: query.page, pageSize: query.pageSize };
  }

  chapters(novelId: string): ChapterSummary[] {
    return (this.chaptersByNovel.get(novelId) ?? NO_CHAPTERS).summaries;
  }

  narrations(novelId: string): ChapterNarration[] {
    return (this.chaptersByNovel.get(novelId) ?? NO_CHAPTERS).narrations;
  }

  narration(novelId: string, number: number): ChapterNarration | null {
    return this.narrations(novelId)[number - 1] ?? null;
  }

  endings(novelId: string): Ending[] {
    return this.endingsByNovel.get(novelId) ?? [];
  }
}

/**
 * Reads the published catalog of an environment, and every ending's label, in four
 * statements run side by side. They may see different commits of an import; the import's
 * notification then drops the snapshot (see NotifiedCache), so a mixed one never outlives it.
 */
export async function loadCatalogSnapshot(db: Db, environment: Environment): Promise<CatalogSnapshot> {
  const published = `SELECT id FROM novels WHERE environment = $1 AND status = 'published'`;
  const [categories, novelRows, chapters, endings] = await Promise.all([
    db.query<Category>(`SELECT id, name, sort_order AS "sortOrder" FROM categories WHERE environment = $1 ORDER BY sort_order, id`, [environment]),
    db.query<NovelRow>(`SELECT ${NOVEL_SELECT} FROM novels WHERE environment = $1 AND status = 'published' ORDER BY title, id`, [environment]),
    db.query<ChapterRow>(
      `SELECT novel_id, number, title, duration_seconds, audio_status, audio_key, audio_bytes, audio_duration_seconds, audio_bitrate_kbps
         FROM chapters WHERE environment = $1 AND novel_id IN (${published}) ORDER BY novel_id, number`,
      [environment],
    ),
    // Every novel's, removed ones included (their endings stay in the table): the published
    // novels' endings are served, all are labels for reports.
    db.query<EndingRow>(
      `SELECT novel_id AS "novelId", choice_id AS "choiceId", label, ending, sort_order AS "sortOrder"
         FROM endings WHERE environment = $1 ORDER BY novel_id, sort_order, choice_id`,
      [environment],
    ),
  ]);
  const novels = novelRows.map(toNovel);
  const publishedIds = new Set(novels.map((novel) => novel.id));
  return new CatalogSnapshot(
    categories,
    novels,
    chaptersOf(chapters),
    groupBy(
      endings.filter((row) => publishedIds.has(row.novelId)),
      (row) => row.novelId,
      ({ choiceId, label, ending, sortOrder }) => ({ choiceId, label, ending, sortOrder }),
    ),
    endingLabelsOf(endings),
  );
}

type EndingRow = Ending & { novelId: string };

/** `rows` in the catalog's order (novel id, sort order, choice id), which becomes each label's position. */
function endingLabelsOf(rows: readonly EndingRow[]): Map<string, Map<string, EndingLabel>> {
  const byNovel = new Map<string, Map<string, EndingLabel>>();
  for (const [position, { novelId, choiceId, label }] of rows.entries()) {
    let novel = byNovel.get(novelId);
    if (!novel) byNovel.set(novelId, (novel = new Map()));
    novel.set(choiceId, { label, position });
  }
  return byNovel;
}

function groupBy<R, T>(rows: readonly R[], keyOf: (row: R) => string, map: (row: R) => T): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const key = keyOf(row);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = []));
    group.push(map(row));
  }
  return groups;
}

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

/** A chapter's audio columns. */
export interface AudioRow {
  audio_status: string;
  audio_key: string | null;
  // bigint arrives as a string from pg.
  audio_bytes: string | null;
  audio_duration_seconds: number | null;
  audio_bitrate_kbps: number | null;
}

/** A chapter's columns without its text: what the snapshot keeps. */
export interface ChapterRow extends AudioRow {
  novel_id: string;
  number: number;
  title: string;
  duration_seconds: number;
}

function chaptersOf(rows: readonly ChapterRow[]): Map<string, CachedChapters> {
  const byNovel = new Map<string, CachedChapters>();
  for (const [novelId, chapters] of groupBy(
    rows,
    (row) => row.novel_id,
    (row) => row,
  )) {
    byNovel.set(novelId, {
      summaries: chapters.map((c) => ({ number: c.number, title: c.title, durationSeconds: c.duration_seconds })),
      narrations: chapters.map((c) => ({ number: c.number, audio: toAudio(c) })),
    });
  }
  return byNovel;
}

export function toAudio(row: AudioRow): ChapterAudio {
  return {
    status: row.audio_status as AudioStatus,
    key: row.audio_key,
    bytes: row.audio_bytes === null ? null : Number(row.audio_bytes),
    durationSeconds: row.audio_duration_seconds,
    bitrateKbps: row.audio_bitrate_kbps,
  };
}
