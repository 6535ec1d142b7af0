import { Injectable } from '@nestjs/common';
import { DomainError, novelNotFound } from '../../../shared/errors/domain-error.js';
import type { Environment } from '../../../shared/tenancy/tenant.js';
import type { Category, Chapter, ChapterNarration, ChapterSummary, Ending, EndingLabels, Novel, NovelPage, NovelQuery } from '../domain/catalog.js';
import { CatalogRepository } from '../domain/catalog.repository.js';

export interface PublishedChapter {
  novel: Novel;
  chapter: Chapter;
}

export interface PublishedNarration {
  novel: Novel;
  narration: ChapterNarration;
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
    const [novel, chapter] = await Promise.all([this.catalog.publishedNovel(environment, novelId), this.catalog.chapter(environment, novelId, chapterNumber)]);
    if (!novel) throw novelNotFound(novelId);
    if (!chapter) throw chapterNotFound(novel, chapterNumber);
    return { novel, chapter };
  }

  /**
   * A published novel's chapter narration, without the chapter's text, in one query:
   * novel_not_found, or not_found beyond the novel. The audio endpoints' lookup.
   */
  async publishedNarration(environment: Environment, novelId: string, chapterNumber: number): Promise<PublishedNarration> {
    const found = await this.catalog.publishedNarration(environment, novelId, chapterNumber);
    if (!found) throw novelNotFound(novelId);
    if (!found.narration) throw chapterNotFound(found.novel, chapterNumber);
    return { novel: found.novel, narration: found.narration };
  }

  /** The narration of every chapter, of a novel the caller has already found published. */
  narrations(environment: Environment, novel: Novel): Promise<ChapterNarration[]> {
    return this.catalog.narrations(environment, novel.id);
  }

  /** Chapter titles and durations of a novel the caller has already found published. */
  chapters(environment: Environment, novel: Novel): Promise<ChapterSummary[]> {
    return this.catalog.chapters(environment, novel.id);
  }

  /** Endings in sort order, of a novel the caller has already found published. */
  endings(environment: Environment, novel: Novel): Promise<Ending[]> {
    return this.catalog.endings(environment, novel.id);
  }

  /**
   * The label and sort order of every ending of the environment, removed novels included,
   * for reports of what readers chose: the one read that sees removed novels, so it must
   * never serve one to a reader.
   */
  endingLabels(environment: Environment): Promise<EndingLabels> {
    return this.catalog.endingLabels(environment);
  }
}

const chapterNotFound = (novel: Novel, chapterNumber: number) =>
  new DomainError('not_found', `Novel "${novel.id}" has no chapter ${chapterNumber}: it has ${novel.totalChapters}.`);
