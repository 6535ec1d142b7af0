import fc from 'fast-check';
import type { ChapterListing } from '../../src/modules/reading/application/chapter-reading.service.js';
import { chapterListingJson } from '../../src/modules/reading/http/chapter-listing.json.js';
import { chapterListingDto } from '../../src/modules/reading/http/reading.dto.js';

/** The listing's JSON is written piece by piece and cached; it must be exactly the DTO serialised. */
const chapter = fc.record({
  number: fc.integer({ min: 1, max: 100_000 }),
  title: fc.string({ unit: 'grapheme', maxLength: 20 }),
  durationSeconds: fc.integer({ min: 0, max: 86_400 }),
});
const release = fc.oneof(
  fc.constant({ released: true, unlocksAt: null, started: true }),
  fc.constant({ released: false, unlocksAt: null, started: false }),
  fc.record({
    released: fc.constant(false),
    unlocksAt: fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }),
    started: fc.constant(true),
  }),
);
const listing = fc
  .record({ id: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }), chapters: fc.array(chapter, { maxLength: 8 }), withSubscriber: fc.boolean() })
  .chain(({ id, chapters, withSubscriber }) =>
    fc.array(release, { minLength: chapters.length, maxLength: chapters.length }).map((releases): ChapterListing => ({
      novel: { id, totalChapters: chapters.length } as ChapterListing['novel'],
      chapters,
      ...(withSubscriber && { releases }),
    })),
  );

test('the chapter list JSON is the DTO serialised, with and without a subscriber, cached or not', () => {
  fc.assert(
    fc.property(listing, (l) => {
      const expected = JSON.stringify(chapterListingDto(l));
      expect(chapterListingJson(l)).toBe(expected);
      expect(chapterListingJson(l)).toBe(expected);
    }),
    { numRuns: 500 },
  );
});
