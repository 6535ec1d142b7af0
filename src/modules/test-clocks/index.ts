export { TestClocksModule } from './test-clocks.module.js';
