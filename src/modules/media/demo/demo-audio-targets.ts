import type { DemoChapter } from './demo-narration.js';

/** Where the demo catalog lives, relative to the project root. */
export const DEMO_MANIFEST_PATH = 'catalog/demo/manifest.json';
export const DEMO_AUDIO_DIR = 'catalog/demo/audio';

/**
 * Every chapter of the demo manifest: `{"novels": [{"id": …, "chapters": [...]}]}`, where
 * a chapter is numbered by its `number` field or else by its position from 1; a novel
 * may give `total_chapters` instead of a list.
 */
export function chaptersOfManifest(manifest: unknown): DemoChapter[] {
  const novels = (manifest as { novels?: unknown })?.novels;
  if (!Array.isArray(novels)) throw new Error(`${DEMO_MANIFEST_PATH} has no "novels" array`);
  return novels.flatMap((novel: { id?: unknown; chapters?: unknown; total_chapters?: unknown }) => {
    if (typeof novel?.id !== 'string') throw new Error(`A novel in ${DEMO_MANIFEST_PATH} has no string "id"`);
    const novelId = novel.id;
    if (Array.isArray(novel.chapters)) {
      return novel.chapters.map((chapter: { number?: unknown }, index) => ({
        novelId,
        chapterNumber: typeof chapter?.number === 'number' ? chapter.number : index + 1,
      }));
    }
    if (typeof novel.total_chapters === 'number') return numbered(novelId, novel.total_chapters);
    throw new Error(`Novel "${novelId}" in ${DEMO_MANIFEST_PATH} has neither a "chapters" array nor "total_chapters"`);
  });
}

/** Chapters named on the command line as `novel-id:count` (chapters 1 to count). */
export function chaptersOfArguments(args: readonly string[]): DemoChapter[] {
  return args.flatMap((arg) => {
    const match = /^([a-z0-9-]+):(\d+)$/.exec(arg);
    if (!match) throw new Error(`"${arg}" is not novel-id:chapter-count, such as the-lighthouse:5`);
    return numbered(match[1], Number(match[2]));
  });
}

const numbered = (novelId: string, count: number): DemoChapter[] => Array.from({ length: count }, (_, index) => ({ novelId, chapterNumber: index + 1 }));
