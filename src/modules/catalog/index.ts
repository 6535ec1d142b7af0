export { CatalogModule } from './catalog.module.js';
export { CatalogService, type PublishedChapter } from './application/catalog.service.js';
export { CatalogImportService, type CatalogImportResult } from './application/catalog-import.service.js';
export { demoManifestPath } from './application/demo-catalog.seeder.js';
export { ManifestError } from './domain/catalog-manifest.js';
export type { AudioStatus, Category, Chapter, ChapterAudio, ChapterSummary, Ending, Novel } from './domain/catalog.js';
export { CATALOG_ENTITIES } from './infrastructure/catalog.entities.js';
