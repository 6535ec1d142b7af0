import { Injectable } from '@nestjs/common';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { CatalogService, type Chapter, type ChapterSummary, type Novel } from '../../catalog/index.js';
import { chapterReleases, type ChapterRelease } from '../domain/novel-progress.js';
import { chapterLocked, notEntitled } from '../domain/reading-errors.js';
import { ChapterReleaseService } from './chapter-release.service.js';
import { ReadingProgressService } from './reading-progress.service.js';

export interface ChapterListing {
  novel: Novel;
  chapters: readonly ChapterSummary[];
  /** With a subscriber: each chapter's release, in the order of `chapters`. */
  releases?: ChapterRelease[];
}

/** The chapter list with its release state, and chapter text (contract 4.1, DECISIONS 10). */
@Injectable()
export class ChapterReadingService {
  constructor(
    private readonly catalog: CatalogService,
    private readonly releases: ChapterReleaseService,
    private readonly reading: ReadingProgressService,
  ) {}

  /** Editorial metadata of every chapter; with a subscriber, also each chapter's release state. */
  async listing(tenant: Tenant, novelId: string, subscriberId?: string): Promise<ChapterListing> {
    const novel = await this.catalog.publishedNovel(tenant.environment, novelId);
    const [chapters, reader] = await Promise.all([
      this.catalog.chapters(tenant.environment, novel),
      subscriberId === undefined ? undefined : this.releases.readerState(tenant, subscriberId, novelId),
    ]);
    if (!reader) return { novel, chapters };
    const releaseOf = chapterReleases(reader.progress, reader.features.earlyAccess, reader.now);
    return { novel, chapters, releases: chapters.map((chapter) => releaseOf(chapter.number)) };
  }

  /**
   * A released chapter's text, for an entitled subscriber. Reading it is recorded as
   * activity and moves current_chapter forward.
   */
  async content(tenant: Tenant, novelId: string, chapterNumber: number, subscriberId: string): Promise<Chapter> {
    const [{ chapter }, reader] = await Promise.all([
      this.catalog.publishedChapter(tenant.environment, novelId, chapterNumber),
      this.releases.readerState(tenant, subscriberId, novelId),
    ]);
    if (!reader.features.reading) throw notEntitled(subscriberId);
    const release = this.releases.releaseOf(reader, chapterNumber, reader.now);
    if (!release.released) throw chapterLocked(novelId, chapterNumber, release);
    // Activity is recorded at the real time even on a test clock: analytics counts real days.
    await this.reading.recordChapterActivity(tenant, { subscriberId, novelId, chapterNumber, kind: 'text', occurredAt: new Date() });
    return chapter;
  }
}
