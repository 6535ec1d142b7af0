export { MediaModule } from './media.module.js';
export { MediaService, type ImportedChapterAudio, type IssuedStreamUrl } from './application/media.service.js';
export { AudioImportError } from './domain/audio.probe.js';
export type { StreamRecipient } from './domain/stream-audit.repository.js';
