import { isNovelId, NOVEL_ID_RULE } from '../../../shared/identifiers.js';
import { AUDIO_STATUSES, NOVEL_STATUSES, type AudioStatus, type Category, type Ending, type NovelMetadata, type NovelStatus } from './catalog.js';

/** The catalog manifest of DECISIONS 18, validated and in the service's own terms. */
export interface CatalogManifest {
  categories: ManifestCategory[];
  novels: ManifestNovel[];
}

export type ManifestCategory = Category;

export interface ManifestNovel extends NovelMetadata {
  status: NovelStatus;
  /** Numbered 1..n without gaps, in the manifest's order. */
  chapters: ManifestChapter[];
  endings: ManifestEnding[];
}

export interface ManifestChapter {
  number: number;
  title: string;
  body: string;
  durationSeconds: number;
  audio: ManifestAudio | null;
}

export interface ManifestAudio {
  /** Relative to the manifest, inside its directory; required when `status` is ready. */
  file: string | null;
  status: AudioStatus;
}

export type ManifestEnding = Ending;

/** A manifest the import refuses; `field` is the path of the first bad field, e.g. `novels[2].chapters[0].title`. */
export class ManifestError extends Error {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`${field} ${problem}`);
    this.name = 'ManifestError';
  }
}

const CHOICE_ID = /^[a-z0-9]+(?:[-_][a-z0-9]+)*$/;
const LANGUAGE_TAG = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/;
const MAX_SECONDS = 86_400;

/**
 * Checks a parsed manifest whole and returns it in the service's terms, or throws a
 * ManifestError naming the first bad field. Unknown fields are refused: a misspelt
 * `synopsys` must not silently import an empty synopsis.
 */
export function parseManifest(input: unknown): CatalogManifest {
  const root = objectAt(input, '', ['categories', 'novels']);
  const categories = optionalArrayAt(root, 'categories', '').map((value, i) => category(value, `categories[${i}]`));
  unique(
    categories,
    (c) => c.id,
    (i) => `categories[${i}].id`,
  );
  const novels = arrayAt(root, 'novels', '').map((value, i) => novel(value, `novels[${i}]`));
  unique(
    novels,
    (n) => n.id,
    (i) => `novels[${i}].id`,
  );
  return { categories, novels };
}

function category(value: unknown, path: string): ManifestCategory {
  const o = objectAt(value, path, ['id', 'name', 'sort_order']);
  return {
    id: slug(o, 'id', path),
    name: text(o, 'name', path, 200),
    sortOrder: integer(o, 'sort_order', path, -1_000_000, 1_000_000),
  };
}

function novel(value: unknown, path: string): ManifestNovel {
  const o = objectAt(value, path, ['id', 'title', 'synopsis', 'author', 'category_id', 'tags', 'language', 'cover_url', 'status', 'chapters', 'endings']);
  const chapters = arrayAt(o, 'chapters', path, 1).map((c, i) => chapter(c, `${path}.chapters[${i}]`));
  const endings = arrayAt(o, 'endings', path, 1).map((e, i) => ending(e, `${path}.endings[${i}]`));
  unique(
    endings,
    (e) => e.choiceId,
    (i) => `${path}.endings[${i}].choice_id`,
  );
  return {
    id: slug(o, 'id', path),
    title: text(o, 'title', path, 300),
    synopsis: optionalText(o, 'synopsis', path, 5000),
    author: optionalText(o, 'author', path, 200),
    categoryId: slug(o, 'category_id', path),
    tags: tags(o, path),
    language: matching(o, 'language', path, LANGUAGE_TAG, 'a language tag such as pt-BR'),
    coverUrl: coverUrl(o, path),
    status: o.status === undefined ? 'published' : oneOf(o, 'status', path, NOVEL_STATUSES),
    chapters: numberedFromOne(chapters, path),
    endings,
  };
}

function chapter(value: unknown, path: string): ManifestChapter {
  const o = objectAt(value, path, ['number', 'title', 'body', 'duration_seconds', 'audio']);
  return {
    number: integer(o, 'number', path, 1, 100_000),
    title: text(o, 'title', path, 300),
    body: text(o, 'body', path, 1_000_000),
    durationSeconds: integer(o, 'duration_seconds', path, 0, MAX_SECONDS),
    audio: o.audio === undefined ? null : audio(o.audio, `${path}.audio`),
  };
}

/**
 * A chapter's narration: a file and its status (ready when not given), or only a status
 * while the audio does not exist yet. Ready audio needs a file: the stream endpoint serves
 * what was imported, never a promise of it.
 */
function audio(value: unknown, path: string): ManifestAudio {
  const o = objectAt(value, path, ['file', 'status']);
  const file = o.file === undefined ? null : text(o, 'file', path, 1000);
  // The file must stay inside the manifest's directory.
  if (file !== null && (file.startsWith('/') || file.split(/[\\/]/).includes('..'))) {
    throw new ManifestError(`${path}.file`, 'must be a path relative to the manifest, inside its directory');
  }
  if (file === null && o.status === undefined) throw new ManifestError(`${path}.status`, 'is required when audio has no file');
  const status = o.status === undefined ? 'ready' : oneOf(o, 'status', path, AUDIO_STATUSES);
  if (file === null && status === 'ready') throw new ManifestError(`${path}.file`, 'is required when the audio status is ready');
  return { file, status };
}

function ending(value: unknown, path: string): ManifestEnding {
  const o = objectAt(value, path, ['choice_id', 'label', 'ending', 'sort_order']);
  return {
    choiceId: matching(o, 'choice_id', path, CHOICE_ID, 'a lowercase identifier (a-z, 0-9, single - or _) of at most 100 characters', 100),
    label: text(o, 'label', path, 300),
    ending: text(o, 'ending', path, 1_000_000),
    sortOrder: integer(o, 'sort_order', path, -1_000_000, 1_000_000),
  };
}

/** Chapters must be numbered 1..n: the drip, the chapter listing and chapter_id checks count on it. */
function numberedFromOne(chapters: ManifestChapter[], path: string): ManifestChapter[] {
  unique(
    chapters,
    (c) => c.number,
    (i) => `${path}.chapters[${i}].number`,
  );
  const numbers = new Set(chapters.map((c) => c.number));
  const missing = chapters.findIndex((_, i) => !numbers.has(i + 1));
  if (missing >= 0) throw new ManifestError(`${path}.chapters`, `must be numbered 1 to ${chapters.length} without gaps (chapter ${missing + 1} is missing)`);
  return chapters;
}

function tags(o: Record<string, unknown>, path: string): string[] {
  if (o.tags === undefined) return [];
  if (!Array.isArray(o.tags)) throw new ManifestError(field(path, 'tags'), 'must be an array of strings');
  const values = o.tags.map((tag, i) => {
    if (typeof tag !== 'string' || !tag.trim() || tag.length > 50) {
      throw new ManifestError(`${field(path, 'tags')}[${i}]`, 'must be a non-empty string of at most 50 characters');
    }
    return tag.trim();
  });
  return [...new Set(values)];
}

function coverUrl(o: Record<string, unknown>, path: string): string | null {
  if (o.cover_url === undefined || o.cover_url === null) return null;
  const value = o.cover_url;
  if (typeof value !== 'string' || !/^https?:\/\/\S+$/.test(value) || !URL.canParse(value)) {
    throw new ManifestError(field(path, 'cover_url'), 'must be null or an absolute http(s) URL');
  }
  return value;
}

function objectAt(value: unknown, path: string, allowed: readonly string[]): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ManifestError(path || 'the manifest', 'must be a JSON object');
  const unknown = Object.keys(value).find((key) => !allowed.includes(key));
  if (unknown !== undefined) throw new ManifestError(field(path, unknown), `is not a known field (known: ${allowed.join(', ')})`);
  return value as Record<string, unknown>;
}

function arrayAt(o: Record<string, unknown>, key: string, path: string, minItems = 0): unknown[] {
  const value = o[key];
  if (!Array.isArray(value)) throw new ManifestError(field(path, key), 'is required and must be an array');
  if (value.length < minItems) throw new ManifestError(field(path, key), `must have at least ${minItems} item${minItems === 1 ? '' : 's'}`);
  return value;
}

function optionalArrayAt(o: Record<string, unknown>, key: string, path: string): unknown[] {
  return o[key] === undefined ? [] : arrayAt(o, key, path);
}

function text(o: Record<string, unknown>, key: string, path: string, maxLength: number): string {
  const value = o[key];
  if (!storable(value, maxLength) || !value.trim()) {
    throw new ManifestError(field(path, key), `is required and must be a non-empty string of at most ${maxLength} characters`);
  }
  return value;
}

function optionalText(o: Record<string, unknown>, key: string, path: string, maxLength: number): string {
  const value = o[key] ?? '';
  if (!storable(value, maxLength)) throw new ManifestError(field(path, key), `must be a string of at most ${maxLength} characters`);
  return value;
}

/** PostgreSQL text cannot hold NUL: refused here, naming the field, rather than failing mid-import. */
const storable = (value: unknown, maxLength: number): value is string => typeof value === 'string' && value.length <= maxLength && !value.includes('\u0000');

function slug(o: Record<string, unknown>, key: string, path: string): string {
  const value = o[key];
  if (typeof value !== 'string' || !isNovelId(value)) throw new ManifestError(field(path, key), `is required and must be ${NOVEL_ID_RULE}`);
  return value;
}

function matching(o: Record<string, unknown>, key: string, path: string, pattern: RegExp, rule: string, maxLength = 100): string {
  const value = o[key];
  if (typeof value !== 'string' || value.length > maxLength || !pattern.test(value)) {
    throw new ManifestError(field(path, key), `is required and must be ${rule}`);
  }
  return value;
}

function integer(o: Record<string, unknown>, key: string, path: string, min: number, max: number): number {
  const value = o[key];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new ManifestError(field(path, key), `is required and must be an integer from ${min} to ${max}`);
  }
  return value;
}

function oneOf<T extends string>(o: Record<string, unknown>, key: string, path: string, allowed: readonly T[]): T {
  const value = o[key];
  if (!allowed.includes(value as T)) throw new ManifestError(field(path, key), `must be one of ${allowed.join(', ')}`);
  return value as T;
}

function unique<T>(items: T[], keyOf: (item: T) => unknown, pathOf: (index: number) => string): void {
  const seen = new Set<unknown>();
  items.forEach((item, i) => {
    const key = keyOf(item);
    if (seen.has(key)) throw new ManifestError(pathOf(i), `repeats ${JSON.stringify(key)}`);
    seen.add(key);
  });
}

const field = (path: string, key: string) => (path ? `${path}.${key}` : key);
