export { CatalogModule } from './catalog.module.js';
export { CatalogService, type PublishedChapter, type PublishedNarration } from './application/catalog.service.js';
export { CatalogImportService, type CatalogImportResult } from './application/catalog-import.service.js';
export { demoManifestPath } from './application/demo-catalog.seeder.js';
export { CHAPTER_ID_PATTERN, chapterIdOf, chapterNumberOf } from './domain/chapter-id.js';
export { ManifestError } from './domain/catalog-manifest.js';
export {
  AUDIO_STATUSES,
  type AudioStatus,
  type Category,
  type Chapter,
  type ChapterAudio,
  type ChapterNarration,
  type ChapterSummary,
  type Ending,
  type EndingLabel,
  type EndingLabels,
  type Novel,
} from './domain/catalog.js';
