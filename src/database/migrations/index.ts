import { Platform1763900000000 } from './1763900000000-platform.js';

/** Every migration, in order. A new migration is added here as well as in its file. */
export const MIGRATIONS = [Platform1763900000000];
