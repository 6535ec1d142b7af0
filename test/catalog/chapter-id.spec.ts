import { chapterIdOf, chapterNumberOf } from '../../src/modules/catalog/index.js';

describe('chapter_id ({novel_id}-ch{n}, DECISIONS 12)', () => {
  it('formats and reads back the chapter number', () => {
    expect(chapterIdOf('the-heir', 12)).toBe('the-heir-ch12');
    expect(chapterNumberOf('the-heir', 'the-heir-ch12')).toBe(12);
  });

  it.each(['the-heir-ch0', 'the-heir-ch012', 'the-heir-ch', 'the-heir-ch1a', 'the-heir-12', 'other-ch1', 'the-heir-ch-1', 'the-heir-ch1.5'])(
    'refuses %s for the-heir',
    (chapterId) => expect(chapterNumberOf('the-heir', chapterId)).toBeNull(),
  );

  it('does not mistake a novel whose id extends another for it', () => {
    expect(chapterNumberOf('the-heir', 'the-heir-2-ch1')).toBeNull();
    expect(chapterNumberOf('the-heir-2', 'the-heir-2-ch1')).toBe(1);
  });
});
