import { ANALYTICS_ENTITIES } from '../modules/analytics/index.js';
import { CATALOG_ENTITIES } from '../modules/catalog/index.js';
import { ENTITLEMENT_ENTITIES } from '../modules/entitlements/index.js';
import { IDENTITY_ENTITIES } from '../modules/identity/index.js';
import { KIDS_ENGAGEMENT_ENTITIES } from '../modules/kids-engagement/index.js';
import { MEDIA_ENTITIES } from '../modules/media/index.js';
import { PLAYBACK_ENTITIES } from '../modules/playback/index.js';
import { RATE_LIMIT_ENTITIES } from '../modules/rate-limiting/index.js';
import { READING_ENTITIES } from '../modules/reading/index.js';
import { SERVER_SECRET_ENTITIES } from '../modules/server-secret/index.js';
import { WEBHOOK_ENTITIES } from '../modules/webhooks/index.js';

/** The TypeORM entities of every module, for the one data source: one for every table. */
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
];
