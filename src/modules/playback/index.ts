export { PlaybackModule } from './playback.module.js';
export { PlaybackService } from './application/playback.service.js';
export type { PlaybackPosition } from './domain/playback-position.js';
