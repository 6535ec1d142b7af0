import { DomainError } from '../../src/shared/errors/domain-error.js';
import { chapterRelease, chapterStatus, startInstant, unlockedChapters, type NovelProgress } from '../../src/modules/reading/domain/novel-progress.js';

const now = new Date('2026-03-12T12:00:00Z');
const progress = (overrides: Partial<NovelProgress> = {}): NovelProgress => ({
  novelId: 'n',
  startedAt: new Date('2026-03-10T12:00:00Z'),
  currentChapter: 1,
  finishedAt: null,
  chosenChoiceId: null,
  ...overrides,
});

describe("release state of a subscriber's novel", () => {
  it('is not_started, with no unlocks_at, before the novel is opened', () => {
    const release = chapterRelease(null, 1, false, now);
    expect(release).toEqual({ released: false, unlocksAt: null, started: false });
    expect(chapterStatus(release)).toBe('not_started');
  });

  it('follows the drip once opened: unlocked, or locked with the release instant', () => {
    expect(chapterStatus(chapterRelease(progress(), 3, false, now))).toBe('unlocked');
    expect(chapterRelease(progress(), 4, false, now)).toEqual({ released: false, unlocksAt: new Date('2026-03-13T09:00:00Z'), started: true });
    expect(unlockedChapters(progress(), 10, false, now)).toBe(3);
  });

  it('keeps every chapter of a finished novel released, whatever the plan now', () => {
    const finished = progress({ startedAt: new Date('2026-03-12T11:00:00Z'), finishedAt: now, chosenChoiceId: 'stay' });
    expect(unlockedChapters(finished, 10, false, now)).toBe(10);
    expect(chapterRelease(finished, 10, false, now).released).toBe(true);
  });
});

describe('the start of a novel', () => {
  it('is now unless the sandbox asks for a past instant', () => {
    expect(startInstant('live', undefined, now)).toBe(now);
    const past = new Date('2026-01-01T00:00:00Z');
    expect(startInstant('sandbox', past, now)).toBe(past);
  });

  it('refuses started_at on live, and a future started_at anywhere', () => {
    expect(() => startInstant('live', new Date('2026-01-01T00:00:00Z'), now)).toThrow(DomainError);
    expect(() => startInstant('sandbox', new Date('2026-03-12T12:00:01Z'), now)).toThrow(/past instant/);
  });
});
