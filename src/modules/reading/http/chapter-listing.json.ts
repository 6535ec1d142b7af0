import { bounded, byObject } from '../../../shared/memo.js';
import type { ChapterSummary } from '../../catalog/index.js';
import type { ChapterListing } from '../application/chapter-reading.service.js';
import { chapterStatus } from '../domain/novel-progress.js';
import { chapterListingDto } from './reading.dto.js';

/*
 * The chapter list as JSON: JSON.stringify(chapterListingDto(listing)), made cheaply. The
 * catalog hands out the same chapters array and chapter objects until it changes, then new
 * ones (ADR 0123), so text kept by those objects is never older than they are.
 */

/**
 * Without a subscriber the list depends on the catalog only: made once per novel and
 * catalog snapshot, kept by the snapshot's chapters array (the listing is new per request).
 */
const anonymousListings = byObject('reading.anonymous-chapter-list-json', (_chapters: ChapterListing['chapters'], listing: ChapterListing) =>
  JSON.stringify(chapterListingDto(listing)),
);

/** Each chapter's entry up to its release fields, without the closing brace. */
const entryOpenings = byObject('reading.chapter-entry-opening', (chapter: ChapterSummary) =>
  JSON.stringify({ chapter_number: chapter.number, title: chapter.title, duration_seconds: chapter.durationSeconds }).slice(0, -1),
);

/** Release instants repeat across readers (one a day at 06:00 São Paulo, shifted by the early-access day): their text is kept. */
const isoStrings = bounded('reading.release-instant-iso', 'clear', 10_000, (ms: number) => new Date(ms).toISOString());

export function chapterListingJson(listing: ChapterListing): string {
  const { novel, chapters, releases } = listing;
  if (!releases) return anonymousListings.get(chapters, listing);
  const entries = chapters.map((chapter, i) => {
    const release = releases[i];
    return `${entryOpenings.get(chapter)},"status":"${chapterStatus(release)}"${release.unlocksAt ? `,"unlocks_at":"${isoStrings.get(release.unlocksAt.getTime())}"` : ''}}`;
  });
  return `{"novel_id":${JSON.stringify(novel.id)},"total_chapters":${novel.totalChapters},"chapters":[${entries.join(',')}]}`;
}
