/** The player catalog's chapter identifier: `{novel_id}-ch{n}`, e.g. `the-heir-ch12` (DECISIONS 12). */
export const chapterIdOf = (novelId: string, chapterNumber: number) => `${novelId}-ch${chapterNumber}`;

/** Any chapter id's form: a novel slug, `-ch`, and a chapter number from 1 without leading zeros. */
export const CHAPTER_ID_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*-ch[1-9]\d{0,8}$/;

/** The chapter number a chapter_id names within `novelId`, or null when it is not of that form. */
export function chapterNumberOf(novelId: string, chapterId: string): number | null {
  const prefix = `${novelId}-ch`;
  if (!chapterId.startsWith(prefix)) return null;
  const number = chapterId.slice(prefix.length);
  return /^[1-9]\d{0,8}$/.test(number) ? Number(number) : null;
}
