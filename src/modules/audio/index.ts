export { AudioModule } from './audio.module.js';
