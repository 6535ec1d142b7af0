export { EndingsModule } from './endings.module.js';
