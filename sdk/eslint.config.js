// ESLint looks for the configuration nearest each file: the repository's rules, with their
// ignore patterns (dist/, node_modules/) taken relative to sdk/.
export { default } from '../eslint.config.js';
