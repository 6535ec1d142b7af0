import { Injectable } from '@nestjs/common';
import { ApiError, novelNotFound } from '../../../shared/errors/api-error.js';
import type { Environment } from '../../../shared/tenancy/tenant.js';
import type { Category, Chapter, ChapterSummary, Ending, Novel, NovelPage, NovelQuery } from '../domain/catalog.js';
import { CatalogRepository } from '../domain/catalog.repository.js';

export interface PublishedChapter {
  novel: Novel;
  chapter: Chapter;
}

/**
 * The catalog's door for the rest of the service. Removed novels do not exist here: every
 * lookup by id answers them with novel_not_found (404 invalid_request, DECISIONS 9).
 */
@Injectable()
export class CatalogService {
  constructor(private readonly catalog: CatalogRepository) {}

  categories(environment: Environment): Promise<Category[]> {
    return this.catalog.categories(environment);
  }

  findNovels(environment: Environment, query: NovelQuery): Promise<NovelPage> {
    return this.catalog.findNovels(environment, query);
  }

  /** A published novel, or novel_not_found. */
  async publishedNovel(environment: Environment, novelId: string): Promise<Novel> {
    const novel = await this.catalog.publishedNovel(environment, novelId);
    if (!novel) throw novelNotFound(novelId);
    return novel;
  }

  /** The published novels among these ids (removed and unknown ones are left out), in one query. */
  publishedNovels(environment: Environment, novelIds: readonly string[]): Promise<Novel[]> {
    return this.catalog.publishedNovels(environment, novelIds);
  }

  /** A published novel's chapter with its text and audio fields: novel_not_found, or not_found beyond the novel. */
  async publishedChapter(environment: Environment, novelId: string, chapterNumber: number): Promise<PublishedChapter> {
    const [novel, chapter] = await Promise.all([
      this.catalog.publishedNovel(environment, novelId),
      this.catalog.chapter(environment, novelId, chapterNumber),
    ]);
    if (!novel) throw novelNotFound(novelId);
    if (!chapter) throw chapterNotFound(novel, chapterNumber);
    return { novel, chapter };
  }

  /** Chapter titles and durations of a novel the caller has already found published. */
  chapters(environment: Environment, novel: Novel): Promise<ChapterSummary[]> {
    return this.catalog.chapters(environment, novel.id);
  }

  /** Endings in sort order, of a novel the caller has already found published. */
  endings(environment: Environment, novel: Novel): Promise<Ending[]> {
    return this.catalog.endings(environment, novel.id);
  }
}

const chapterNotFound = (novel: Novel, chapterNumber: number) =>
  new ApiError('not_found', `Novel "${novel.id}" has no chapter ${chapterNumber}: it has ${novel.totalChapters}.`);
