import fc from 'fast-check';
import { DateTime } from 'luxon';
import { chapterReleaseAt, releaseCutoff, releaseDay, releasedChapterCount, releaseInstantOfDay } from '../../src/modules/drip/index.js';

const at = (iso: string) => new Date(iso);
const HOUR = 3_600_000;

describe('the drip rule (DECISIONS 8)', () => {
  it.each([
    ['2026-03-10T12:00:00Z', false, '2026-03-11T09:00:00.000Z', '2026-03-12T09:00:00.000Z'],
    ['2026-03-10T08:30:00Z', false, '2026-03-10T09:00:00.000Z', '2026-03-11T09:00:00.000Z'],
    ['2026-03-10T12:00:00Z', true, '2026-03-10T12:00:00.000Z', '2026-03-11T09:00:00.000Z'],
    // São Paulo's daylight saving began on 2018-11-04: 06:00 SP was 08:00 UTC from then on.
    ['2018-11-03T12:00:00Z', false, '2018-11-04T08:00:00.000Z', '2018-11-05T08:00:00.000Z'],
  ])('started %s, early access %s: chapter 2 at %s, chapter 3 at %s', (started, earlyAccess, chapter2, chapter3) => {
    const drip = { startedAt: at(started), earlyAccess };
    expect(chapterReleaseAt(drip, 1).toISOString()).toBe(at(started).toISOString());
    expect(chapterReleaseAt(drip, 2).toISOString()).toBe(chapter2);
    expect(chapterReleaseAt(drip, 3).toISOString()).toBe(chapter3);
    // The count agrees with the instants: one millisecond before each release, one fewer.
    expect(releasedChapterCount(drip, 10, at(started))).toBe(chapter2 === at(started).toISOString() ? 2 : 1);
    expect(releasedChapterCount(drip, 10, new Date(at(chapter3).getTime() - 1))).toBe(2);
    expect(releasedChapterCount(drip, 10, at(chapter3))).toBe(3);
  });

  it('uses the historic offset: 06:00 SP was 08:00 UTC in the summer time of January 2018, and is 09:00 UTC since 2019', () => {
    expect(releaseInstantOfDay(releaseDay(at('2018-01-15T12:00:00Z'))).toISOString()).toBe('2018-01-15T08:00:00.000Z');
    expect(releaseInstantOfDay(releaseDay(at('2019-06-15T12:00:00Z'))).toISOString()).toBe('2019-06-15T09:00:00.000Z');
  });

  it('places the release-day boundary at 06:00 SP', () => {
    expect(releaseDay(at('2026-03-10T08:59:59.999Z'))).toBe(releaseDay(at('2026-03-09T12:00:00Z')));
    expect(releaseDay(at('2026-03-10T09:00:00Z'))).toBe(releaseDay(at('2026-03-09T12:00:00Z')) + 1);
  });

  it('never releases more than the novel has', () => {
    expect(releasedChapterCount({ startedAt: at('2026-01-01T12:00:00Z'), earlyAccess: true }, 5, at('2027-01-01T00:00:00Z'))).toBe(5);
  });

  describe('properties', () => {
    // Instants from 2010 to 2035, covering the years with and without daylight saving.
    const instant = fc.integer({ min: Date.UTC(2010, 0, 1), max: Date.UTC(2035, 0, 1) }).map((ms) => new Date(ms));
    const laterBy = fc.integer({ min: 0, max: 400 * 24 * HOUR });
    const drip = fc.record({ startedAt: instant, earlyAccess: fc.boolean() });
    const total = fc.integer({ min: 1, max: 400 });

    it('the released count never decreases with time', () => {
      fc.assert(
        fc.property(drip, total, laterBy, laterBy, (d, n, a, b) => {
          const earlier = new Date(d.startedAt.getTime() + Math.min(a, b));
          const later = new Date(d.startedAt.getTime() + Math.max(a, b));
          return releasedChapterCount(d, n, earlier) <= releasedChapterCount(d, n, later);
        }),
      );
    });

    it('the released count is at least 1 from the start and never exceeds the total', () => {
      fc.assert(
        fc.property(drip, total, laterBy, (d, n, offset) => {
          const count = releasedChapterCount(d, n, new Date(d.startedAt.getTime() + offset));
          return count >= 1 && count <= n;
        }),
      );
    });

    it('early access never releases fewer chapters', () => {
      fc.assert(
        fc.property(instant, total, laterBy, (startedAt, n, offset) => {
          const now = new Date(startedAt.getTime() + offset);
          return releasedChapterCount({ startedAt, earlyAccess: true }, n, now) >= releasedChapterCount({ startedAt, earlyAccess: false }, n, now);
        }),
      );
    });

    // The definition of DECISIONS 8 read directly from the tz database, as releaseDay
    // computed it before release instants were memoised for speed.
    const directReleaseDay = (x: Date) => {
      const local = DateTime.fromJSDate(x, { zone: 'America/Sao_Paulo' });
      const day = Math.round(Date.UTC(local.year, local.month - 1, local.day) / (24 * HOUR));
      const sixOClock = DateTime.fromObject({ year: local.year, month: local.month, day: local.day, hour: 6 }, { zone: 'America/Sao_Paulo' });
      return x.getTime() >= sixOClock.toMillis() ? day : day - 1;
    };

    it('the memoised release day equals the definition read directly from the tz database', () => {
      const nearSix = fc
        .integer({ min: 0, max: 9_000 })
        .chain((day) => fc.integer({ min: -3 * HOUR, max: 3 * HOUR }).map((shift) => new Date(Date.UTC(2010, 0, 1) + day * 24 * HOUR + 9 * HOUR + shift)));
      fc.assert(
        fc.property(fc.oneof(instant, nearSix), (x) => releaseDay(x) === directReleaseDay(x)),
        { numRuns: 2_000 },
      );
    });

    it('chapter n is released exactly when the count reaches n', () => {
      fc.assert(
        fc.property(drip, fc.integer({ min: 2, max: 400 }), (d, n) => {
          const release = chapterReleaseAt(d, n);
          const justBefore = new Date(release.getTime() - 1);
          const reached = releasedChapterCount(d, n, release) === n;
          const notBefore = release.getTime() === d.startedAt.getTime() || releasedChapterCount(d, n, justBefore) === n - 1;
          return reached && notBefore && release.getTime() >= d.startedAt.getTime();
        }),
      );
    });

    it('the release cutoff says the same as the release instant: released exactly when started before it', () => {
      const chapter = fc.integer({ min: 1, max: 400 });
      fc.assert(
        fc.property(drip, chapter, fc.integer({ min: -2 * 24 * HOUR, max: 400 * 24 * HOUR }), (d, n, offset) => {
          const at = new Date(d.startedAt.getTime() + offset);
          const released = chapterReleaseAt(d, n).getTime() <= at.getTime();
          return released === d.startedAt.getTime() < releaseCutoff(n, d.earlyAccess, at).getTime();
        }),
        { numRuns: 5_000 },
      );
    });

    it('the release cutoff is exact to the millisecond: a start at the cutoff is not released, one just before is', () => {
      fc.assert(
        fc.property(fc.integer({ min: 1, max: 400 }), fc.boolean(), instant, (n, earlyAccess, at) => {
          const cutoff = releaseCutoff(n, earlyAccess, at).getTime();
          const releasedFrom = (start: number) => chapterReleaseAt({ startedAt: new Date(start), earlyAccess }, n).getTime() <= at.getTime();
          return releasedFrom(cutoff - 1) && !releasedFrom(cutoff);
        }),
      );
    });
  });
});
