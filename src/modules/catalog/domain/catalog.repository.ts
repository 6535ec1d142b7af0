import type { Environment } from '../../../shared/tenancy/tenant.js';
import type { Category, Chapter, ChapterAudio, ChapterNarration, ChapterSummary, Ending, EndingLabels, Novel, NovelPage, NovelQuery } from './catalog.js';
import type { ManifestCategory, ManifestChapter, ManifestEnding, ManifestNovel } from './catalog-manifest.js';

/** A chapter as an import stores it: the manifest's fields and the narration it imported. */
export type ChapterRecord = Omit<ManifestChapter, 'audio'> & { novelId: string; audio: ChapterAudio };
export type EndingRecord = ManifestEnding & { novelId: string };

/**
 * The catalog of one environment (live and sandbox have separate catalogs). Reads see
 * published novels only, unless said otherwise, and may come from memory: a writer must
 * call announceChange in its transaction for every process to see the change at commit.
 * Writes join the caller's unit of work.
 */
export abstract class CatalogRepository {
  abstract categories(environment: Environment): Promise<Category[]>;
  abstract findNovels(environment: Environment, query: NovelQuery): Promise<NovelPage>;
  abstract publishedNovel(environment: Environment, novelId: string): Promise<Novel | null>;
  abstract publishedNovels(environment: Environment, novelIds: readonly string[]): Promise<Novel[]>;
  abstract chapters(environment: Environment, novelId: string): Promise<ChapterSummary[]>;
  abstract chapter(environment: Environment, novelId: string, number: number): Promise<Chapter | null>;
  /** A published novel and one chapter's narration (null beyond the novel), in one query; null when the novel is not published. */
  abstract publishedNarration(environment: Environment, novelId: string, number: number): Promise<{ novel: Novel; narration: ChapterNarration | null } | null>;
  /** The narration of every chapter of a novel, in chapter order. */
  abstract narrations(environment: Environment, novelId: string): Promise<ChapterNarration[]>;
  abstract endings(environment: Environment, novelId: string): Promise<Ending[]>;
  /** Every ending's label, of published and removed novels alike. */
  abstract endingLabels(environment: Environment): Promise<EndingLabels>;

  /** Serialises catalog writers of the environment until the transaction ends. */
  abstract lockForWriting(environment: Environment): Promise<void>;
  /** Whether the environment has any novel, published or removed. */
  abstract hasNovels(environment: Environment): Promise<boolean>;
  abstract existingCategoryIds(environment: Environment, ids: readonly string[]): Promise<string[]>;
  /** Each upsert writes only rows whose content differs, and returns what it changed. */
  abstract upsertCategories(environment: Environment, categories: readonly ManifestCategory[]): Promise<number>;
  abstract upsertNovels(environment: Environment, novels: readonly ManifestNovel[]): Promise<string[]>;
  /** Returns the ids of the novels whose chapters changed. */
  abstract upsertChapters(environment: Environment, chapters: readonly ChapterRecord[]): Promise<string[]>;
  abstract upsertEndings(environment: Environment, endings: readonly EndingRecord[]): Promise<string[]>;
  /** Deletes the chapters and endings of these novels that the given sets no longer hold; returns the novels changed. */
  abstract deleteStaleContent(environment: Environment, novels: readonly ManifestNovel[]): Promise<string[]>;
  /** Tells every process, at commit, that the environment's catalog changed. */
  abstract announceChange(environment: Environment): Promise<void>;
  /** Recomputes total_chapters and has_audio, and marks the changed novels updated now. */
  abstract refreshNovels(environment: Environment, novelIds: readonly string[], changedIds: readonly string[]): Promise<void>;
}
