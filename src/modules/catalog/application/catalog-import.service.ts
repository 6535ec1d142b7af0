import { Injectable } from '@nestjs/common';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { UnitOfWork } from '../../../shared/persistence/unit-of-work.js';
import type { Environment } from '../../../shared/tenancy/tenant.js';
import { AudioImportError, MediaService } from '../../media/index.js';
import { ManifestError, parseManifest, type CatalogManifest } from '../domain/catalog-manifest.js';
import { CatalogRepository, type ChapterRecord } from '../domain/catalog.repository.js';

export interface CatalogImportResult {
  environment: Environment;
  categories: number;
  novels: number;
  chapters: number;
  endings: number;
  /** Novels created or changed by this import; 0 when the same manifest is imported again. */
  novelsChanged: number;
}

export interface ImportOptions {
  /** Directory that audio `file` paths are relative to (the manifest's own). */
  directory: string;
  /** Receives progress lines on large imports. */
  progress?: (line: string) => void;
}

/** Chapters written per statement: bounds statement size, and paces the progress lines. */
const CHAPTER_BATCH = 250;
/** Audio files read and stored at once: storage round trips overlap, memory stays flat (files are streamed). */
const AUDIO_IMPORTS_AT_ONCE = 4;
/** Audio files per progress line. */
const AUDIO_PROGRESS_STEP = 25;

/**
 * `catalog:import` (DECISIONS 18): an idempotent upsert of a manifest, all or nothing.
 * A manifest lists whole novels: each novel's chapters and endings become exactly those of
 * the manifest; novels and categories it does not list are left as they are.
 */
@Injectable()
export class CatalogImportService {
  constructor(
    private readonly catalog: CatalogRepository,
    private readonly media: MediaService,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  async importFile(file: string, environment: Environment, progress?: (line: string) => void): Promise<CatalogImportResult> {
    const path = resolve(file);
    return this.importManifest(await readJson(path), environment, { directory: dirname(path), progress });
  }

  /**
   * Validates the whole manifest and imports its audio files, then writes it in one
   * transaction; a ManifestError names the first bad field.
   */
  async importManifest(input: unknown, environment: Environment, options: ImportOptions): Promise<CatalogImportResult> {
    const progress = options.progress ?? (() => undefined);
    const manifest = parseManifest(input);
    // Categories are never deleted, so a reference found now stays valid until the write;
    // checking first spares storing audio for a manifest that is refused anyway.
    await this.checkCategoryReferences(manifest, environment);
    const chapters = await this.chapterRecords(manifest, environment, options.directory, progress);
    return this.unitOfWork.run(async () => {
      await this.catalog.lockForWriting(environment);
      return this.write(manifest, chapters, environment, progress);
    });
  }

  /**
   * Imports the manifest only if the environment's catalog is still empty. Replicas starting
   * together take turns on the catalog lock, so exactly one of them imports.
   */
  seedIfEmpty(file: string, environment: Environment): Promise<CatalogImportResult | null> {
    return this.unitOfWork.run(async () => {
      await this.catalog.lockForWriting(environment);
      if (await this.catalog.hasNovels(environment)) return null;
      return this.importFile(file, environment);
    });
  }

  private async checkCategoryReferences(manifest: CatalogManifest, environment: Environment): Promise<void> {
    const listed = new Set(manifest.categories.map((c) => c.id));
    const elsewhere = [...new Set(manifest.novels.map((n) => n.categoryId).filter((id) => !listed.has(id)))];
    const existing = new Set(await this.catalog.existingCategoryIds(environment, elsewhere));
    const index = manifest.novels.findIndex((n) => !listed.has(n.categoryId) && !existing.has(n.categoryId));
    if (index >= 0) {
      throw new ManifestError(
        `novels[${index}].category_id`,
        `names no category: "${manifest.novels[index].categoryId}" is neither in the manifest nor in the ${environment} catalog`,
      );
    }
  }

  /**
   * Every chapter as it will be stored, with the narration of each chapter that names a
   * file read (duration, bitrate) and stored by the media layer before any row is written:
   * a file that is not a constant-bitrate mp3 refuses the whole manifest. Files stored for
   * a manifest refused later (a bad file further on, a failed write) are harmless: their
   * keys are named by content, so they replace nothing a chapter points at, no chapter
   * points at them, and no URL is ever issued for them.
   */
  private async chapterRecords(
    manifest: CatalogManifest,
    environment: Environment,
    directory: string,
    progress: (line: string) => void,
  ): Promise<ChapterRecord[]> {
    const records: ChapterRecord[] = [];
    const files: { record: ChapterRecord; file: string; field: string }[] = [];
    manifest.novels.forEach((novel, n) =>
      novel.chapters.forEach((chapter, c) => {
        const record: ChapterRecord = { ...chapter, novelId: novel.id, audio: { status: chapter.audio?.status ?? 'pending', ...NO_AUDIO_FILE } };
        records.push(record);
        if (chapter.audio?.file) files.push({ record, file: chapter.audio.file, field: `novels[${n}].chapters[${c}].audio.file` });
      }),
    );
    let done = 0;
    await forEachInOrder(files, AUDIO_IMPORTS_AT_ONCE, async ({ record, file, field }) => {
      const imported = await this.media.importChapterAudio(environment, record.novelId, record.number, resolve(directory, file)).catch((error: unknown) => {
        if (error instanceof AudioImportError) throw new ManifestError(field, `(${file}) cannot be imported as narration: ${error.message}`);
        throw error;
      });
      record.audio = { status: record.audio.status, ...imported };
      done += 1;
      if (files.length > AUDIO_PROGRESS_STEP && (done % AUDIO_PROGRESS_STEP === 0 || done === files.length)) {
        progress(`catalog:import: ${done}/${files.length} audio files`);
      }
    });
    return records;
  }

  private async write(
    manifest: CatalogManifest,
    chapters: ChapterRecord[],
    environment: Environment,
    progress: (line: string) => void,
  ): Promise<CatalogImportResult> {
    const { categories, novels } = manifest;
    const categoriesChanged = await this.catalog.upsertCategories(environment, categories);
    const changed = new Set(await this.catalog.upsertNovels(environment, novels));
    for (let done = 0; done < chapters.length; done += CHAPTER_BATCH) {
      const batch = chapters.slice(done, done + CHAPTER_BATCH);
      for (const id of await this.catalog.upsertChapters(environment, batch)) changed.add(id);
      if (chapters.length > CHAPTER_BATCH) progress(`catalog:import: ${done + batch.length}/${chapters.length} chapters`);
    }
    const endings = novels.flatMap((n) => n.endings.map((e) => ({ ...e, novelId: n.id })));
    for (const id of await this.catalog.upsertEndings(environment, endings)) changed.add(id);
    for (const id of await this.catalog.deleteStaleContent(environment, novels)) changed.add(id);
    await this.catalog.refreshNovels(
      environment,
      novels.map((n) => n.id),
      [...changed],
    );
    // An import that changes nothing spares every replica reloading its catalog.
    if (categoriesChanged > 0 || changed.size > 0) await this.catalog.announceChange(environment);
    return {
      environment,
      categories: categories.length,
      novels: novels.length,
      chapters: chapters.length,
      endings: endings.length,
      novelsChanged: changed.size,
    };
  }
}

async function readJson(path: string): Promise<unknown> {
  const text = await readFile(path, 'utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ManifestError('the manifest', `is not valid JSON: ${(error as Error).message}`);
  }
}

/** A chapter without an imported file: no narration to serve, whatever its status. */
const NO_AUDIO_FILE = { key: null, bytes: null, durationSeconds: null, bitrateKbps: null };

/**
 * Runs `work` on every item, at most `limit` at once, starting them in order. After a
 * failure no further item is started; once the running ones end, the failure of the
 * earliest item is thrown, which (items starting in order) is the first item that fails.
 */
async function forEachInOrder<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  const failures: { index: number; error: unknown }[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length && failures.length === 0) {
      const index = next++;
      await work(items[index]).catch((error: unknown) => failures.push({ index, error }));
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failures.length > 0) throw failures.reduce((first, failure) => (failure.index < first.index ? failure : first)).error;
}
