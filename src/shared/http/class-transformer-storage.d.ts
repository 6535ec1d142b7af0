// class-transformer keeps its decorators' metadata in a module its package index does not
// re-export; the validation plan reads it (its typings are published beside it).
declare module 'class-transformer/cjs/storage.js' {
  export { defaultMetadataStorage } from 'class-transformer/types/storage.js';
}
