import { Platform1763900000000 } from './1763900000000-platform.js';
import { Reading1763900100000 } from './1763900100000-reading.js';
import { ReadingRollup1763900400000 } from './1763900400000-reading-rollup.js';
import { KidsActivity1763900410000 } from './1763900410000-kids-activity.js';

/** Every migration, in order. A new migration is added here as well as in its file. */
export const MIGRATIONS = [Platform1763900000000, Reading1763900100000, ReadingRollup1763900400000, KidsActivity1763900410000];
