export { PlaybackModule } from './playback.module.js';
export { PlaybackService } from './application/playback.service.js';
export { chapterIdOf, chapterNumberOf, type PlaybackPosition } from './domain/playback-position.js';
export { PLAYBACK_ENTITIES } from './infrastructure/playback.entities.js';
