import { Platform1763900000000 } from './1763900000000-platform.js';
import { Reading1763900100000 } from './1763900100000-reading.js';
import { RateLimits1763900150000 } from './1763900150000-rate-limits.js';
import { Webhooks1763900300000 } from './1763900300000-webhooks.js';
import { ReadingRollup1763900400000 } from './1763900400000-reading-rollup.js';
import { KidsActivity1763900410000 } from './1763900410000-kids-activity.js';
import { StreamUrlAudit1763900500000 } from './1763900500000-stream-url-audit.js';

/** Every migration, in order of its timestamp. `npm run migration:generate` writes this file. */
export const MIGRATIONS = [
  Platform1763900000000,
  Reading1763900100000,
  RateLimits1763900150000,
  Webhooks1763900300000,
  ReadingRollup1763900400000,
  KidsActivity1763900410000,
  StreamUrlAudit1763900500000,
];
