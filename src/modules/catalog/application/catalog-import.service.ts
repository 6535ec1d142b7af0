import { Injectable } from '@nestjs/common';
import { readFile, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { UnitOfWork } from '../../../shared/persistence/unit-of-work.js';
import type { Environment } from '../../../shared/tenancy/tenant.js';
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

/**
 * `catalog:import` (DECISIONS 18): an idempotent upsert of a manifest, all or nothing.
 * A manifest lists whole novels: each novel's chapters and endings become exactly those of
 * the manifest; novels and categories it does not list are left as they are.
 */
@Injectable()
export class CatalogImportService {
  constructor(
    private readonly catalog: CatalogRepository,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  async importFile(file: string, environment: Environment, progress?: (line: string) => void): Promise<CatalogImportResult> {
    const path = resolve(file);
    return this.importManifest(await readJson(path), environment, { directory: dirname(path), progress });
  }

  /** Validates the whole manifest, then writes it in one transaction; a ManifestError names the first bad field. */
  async importManifest(input: unknown, environment: Environment, options: ImportOptions): Promise<CatalogImportResult> {
    const manifest = parseManifest(input);
    await checkAudioFiles(manifest, options.directory);
    return this.unitOfWork.run(async () => {
      await this.catalog.lockForWriting(environment);
      await this.checkCategoryReferences(manifest, environment);
      return this.write(manifest, environment, options.progress ?? (() => undefined));
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
      throw new ManifestError(`novels[${index}].category_id`, `names no category: "${manifest.novels[index].categoryId}" is neither in the manifest nor in the ${environment} catalog`);
    }
  }

  private async write(manifest: CatalogManifest, environment: Environment, progress: (line: string) => void): Promise<CatalogImportResult> {
    const { categories, novels } = manifest;
    await this.catalog.upsertCategories(environment, categories);
    const changed = new Set(await this.catalog.upsertNovels(environment, novels));
    const chapters: ChapterRecord[] = novels.flatMap((n) => n.chapters.map((c) => ({ ...c, novelId: n.id })));
    for (let done = 0; done < chapters.length; done += CHAPTER_BATCH) {
      const batch = chapters.slice(done, done + CHAPTER_BATCH);
      for (const id of await this.catalog.upsertChapters(environment, batch)) changed.add(id);
      if (chapters.length > CHAPTER_BATCH) progress(`catalog:import: ${done + batch.length}/${chapters.length} chapters`);
    }
    const endings = novels.flatMap((n) => n.endings.map((e) => ({ ...e, novelId: n.id })));
    for (const id of await this.catalog.upsertEndings(environment, endings)) changed.add(id);
    for (const id of await this.catalog.deleteStaleContent(environment, novels)) changed.add(id);
    await this.catalog.refreshNovels(environment, novels.map((n) => n.id), [...changed]);
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

/** Every audio file a manifest names must exist next to it, so that no chapter points at nothing. */
async function checkAudioFiles(manifest: CatalogManifest, directory: string): Promise<void> {
  for (const [n, novel] of manifest.novels.entries()) {
    for (const [c, chapter] of novel.chapters.entries()) {
      if (!chapter.audio) continue;
      const found = await stat(resolve(directory, chapter.audio.file)).catch(() => null);
      if (!found?.isFile()) {
        throw new ManifestError(`novels[${n}].chapters[${c}].audio.file`, `names no file: ${chapter.audio.file} (relative to ${directory})`);
      }
    }
  }
}
