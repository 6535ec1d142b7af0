export { ReadingModule } from './reading.module.js';
export { ChapterReleaseService } from './application/chapter-release.service.js';
export type { Reader } from './domain/reading-progress.repository.js';
export { ReadingProgressService } from './application/reading-progress.service.js';
export { ChapterUnlockJob, type UnlockRunResult } from './application/chapter-unlock.job.js';
export { ReadingLifecycleHooks, type NovelRemovalHook } from './application/reading-lifecycle-hooks.js';
export { releaseCondition, unlockedChapters, type ChapterRelease, type NovelProgress, type ReleaseCondition } from './domain/novel-progress.js';
export { chapterLocked, notEntitled, notReleasedReason } from './domain/reading-errors.js';
