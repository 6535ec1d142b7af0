import { ANALYTICS_ENTITIES } from '../modules/analytics/infrastructure/analytics.entities.js';
import { CATALOG_ENTITIES } from '../modules/catalog/infrastructure/catalog.entities.js';
import { ENTITLEMENT_ENTITIES } from '../modules/entitlements/infrastructure/entitlement.entities.js';
import { IDEMPOTENCY_ENTITIES } from '../modules/idempotency/infrastructure/idempotency.entities.js';
import { IDENTITY_ENTITIES } from '../modules/identity/infrastructure/identity.entities.js';
import { KIDS_ENGAGEMENT_ENTITIES } from '../modules/kids-engagement/infrastructure/kids-engagement.entities.js';
import { OPERATOR_AUDIT_ENTITIES } from '../modules/operator-audit/infrastructure/operator-audit.entities.js';
import { MEDIA_ENTITIES } from '../modules/media/infrastructure/media.entities.js';
import { PLAYBACK_ENTITIES } from '../modules/playback/infrastructure/playback.entities.js';
import { RATE_LIMIT_ENTITIES } from '../modules/rate-limiting/infrastructure/rate-limit.entities.js';
import { READING_ENTITIES } from '../modules/reading/infrastructure/reading.entities.js';
import { SERVER_SECRET_ENTITIES } from '../modules/server-secret/infrastructure/server-secret.entities.js';
import { TEST_CLOCK_ENTITIES } from '../modules/test-clocks/infrastructure/test-clocks.entities.js';
import { WEBHOOK_ENTITIES } from '../modules/webhooks/infrastructure/webhook.entities.js';

/**
 * The TypeORM entities of every module, for the one data source: one for every table. The
 * data source is the one place that needs them all, so it reads them from each module's
 * infrastructure directly; no module's door (index.ts) hands out its entities.
 */
export const ENTITIES = [
  ...IDENTITY_ENTITIES,
  ...ENTITLEMENT_ENTITIES,
  ...CATALOG_ENTITIES,
  ...READING_ENTITIES,
  ...PLAYBACK_ENTITIES,
  ...MEDIA_ENTITIES,
  ...WEBHOOK_ENTITIES,
  ...ANALYTICS_ENTITIES,
  ...KIDS_ENGAGEMENT_ENTITIES,
  ...RATE_LIMIT_ENTITIES,
  ...SERVER_SECRET_ENTITIES,
  ...TEST_CLOCK_ENTITIES,
  ...IDEMPOTENCY_ENTITIES,
  ...OPERATOR_AUDIT_ENTITIES,
];
