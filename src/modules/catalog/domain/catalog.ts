/** The catalog as the rest of the service sees it (DECISIONS 9, 11, 18). */

export const NOVEL_STATUSES = ['published', 'removed'] as const;
export type NovelStatus = (typeof NOVEL_STATUSES)[number];

export const AUDIO_STATUSES = ['pending', 'rendering', 'ready', 'failed'] as const;
export type AudioStatus = (typeof AUDIO_STATUSES)[number];

export interface Category {
  id: string;
  name: string;
  sortOrder: number;
}

/** What an editor writes about a novel: the manifest's fields and the catalog entry's alike. */
export interface NovelMetadata {
  id: string;
  title: string;
  synopsis: string;
  author: string;
  categoryId: string;
  tags: string[];
  language: string;
  coverUrl: string | null;
}

export interface Novel extends NovelMetadata {
  /** Chapters are numbered 1..totalChapters without gaps (the import guarantees it). */
  totalChapters: number;
  /** Every chapter's audio is ready. */
  hasAudio: boolean;
  updatedAt: Date;
}

export interface ChapterSummary {
  number: number;
  title: string;
  /** Estimated duration, editorial metadata. */
  durationSeconds: number;
}

export interface ChapterAudio {
  status: AudioStatus;
  /** Where the media storage keeps the file; null until the audio is stored. */
  key: string | null;
  bytes: number | null;
  durationSeconds: number | null;
  bitrateKbps: number | null;
}

/** A chapter's narration without its text: what the audio endpoints read. */
export interface ChapterNarration {
  number: number;
  audio: ChapterAudio;
}

export interface Chapter extends ChapterSummary {
  novelId: string;
  /** Markdown. */
  body: string;
  audio: ChapterAudio;
}

export interface Ending {
  choiceId: string;
  label: string;
  ending: string;
  sortOrder: number;
}

/** What a report names an ending by, and where it places it. */
export interface EndingLabel {
  label: string;
  /**
   * The ending's place among every ending of the environment in the catalog's order: novel
   * id, then sort order, then choice id, compared by the database (ORDER BY at load), so
   * that a report follows the database's collation without asking it to sort.
   */
  position: number;
}

/**
 * The label of every ending of an environment by novel id, then choice id, removed novels
 * included: readers chose them before the removal, and reports still name them.
 */
export type EndingLabels = ReadonlyMap<string, ReadonlyMap<string, EndingLabel>>;

export interface NovelQuery {
  categoryId?: string;
  tag?: string;
  hasAudio?: boolean;
  page: number;
  pageSize: number;
}

/**
 * One page of the catalog. A page is a value of the catalog it came from: the same query may
 * be answered with the same page object until the catalog changes, so callers must not
 * change it, and may keep what they derive from it under it (a WeakMap).
 */
export interface NovelPage {
  readonly novels: readonly Novel[];
  /** Novels matching the query's filters, over all pages. */
  readonly total: number;
  /** The page number and size asked for. */
  readonly page: number;
  readonly pageSize: number;
}
