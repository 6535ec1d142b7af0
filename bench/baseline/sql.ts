/**
 * The statements the service runs on the hot paths, so that PostgreSQL does the same work
 * for both servers. The composed ones come from the modules' statement builders; the
 * simple ones are copied and name the repository method they mirror: the bench's SQL check
 * (pg_stat_statements, bench/load/sql-check.ts) lists any statement that only one of the
 * two servers runs. Reference
 * data (categories, novels, chapters) is served from memory by both servers (ADR 0123):
 * the baseline loads it once at start with CATALOG_*.
 */

/**
 * The composed hot statements (reader, reader list, playback GET and the PUT's two) are the
 * service's own: `READING_STATEMENTS` and `PLAYBACK_STATEMENTS` from the modules'
 * `queries.ts`, bound by name (bench/baseline/server.ts). Same builders, so no copy can drift.
 */
export { PLAYBACK_STATEMENTS } from '../../src/modules/playback/queries.js';
export { READING_STATEMENTS } from '../../src/modules/reading/queries.js';

/** PgStreamAuditRepository.appendAll (a batch of the audit rows of concurrent requests). */
export const APPEND_STREAM_ISSUES = {
  name: 'media.append-stream-issues',
  text: `INSERT INTO stream_url_issues (partner_id, environment, client_id, subscriber_id, novel_id, chapter_number, issued_at, expires_at)
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::timestamptz[], $8::timestamptz[])`,
};

/** TypeOrmCredentialRepository.findByClientId (token endpoint, and the status check at most every CREDENTIAL_CACHE_SECONDS). */
export const CREDENTIAL = {
  name: 'identity.credential-by-client-id',
  text: `SELECT client_id AS "clientId", partner_id AS "partnerId", secret_hash AS "secretHash", scopes, environment, revoked_at AS "revokedAt"
         FROM credentials WHERE client_id = $1`,
};

/** PostgresRateLimitStore.level: the token endpoint's failure budget, read before the secret is checked. */
export const RATE_LIMIT_LEVEL = {
  name: 'rate-limit.level',
  text: `SELECT LEAST($2::float8, tokens + EXTRACT(EPOCH FROM clock_timestamp() - refreshed_at) * $3::float8) AS level
       FROM rate_limit_buckets WHERE key = $1`,
};

/** TypeOrmSigningKeyRepository.list. */
export const SIGNING_KEYS = `SELECT kid, public_jwk, sealed_private_key, signs_from FROM signing_keys WHERE issuer = $1`;

/** loadCatalogSnapshot (catalog-snapshot.ts), run once at start. */
export const CATALOG_CATEGORIES = `SELECT id, name, sort_order AS "sortOrder" FROM categories WHERE environment = $1 ORDER BY sort_order, id`;
export const CATALOG_NOVELS = `SELECT id, title, synopsis, author, category_id, tags, language, cover_url, total_chapters, has_audio, updated_at
         FROM novels WHERE environment = $1 AND status = 'published' ORDER BY title, id`;
export const CATALOG_CHAPTERS = `SELECT novel_id, number, title, duration_seconds, audio_status, audio_key, audio_duration_seconds
         FROM chapters WHERE environment = $1 AND novel_id IN (SELECT id FROM novels WHERE environment = $1 AND status = 'published') ORDER BY novel_id, number`;
/** Every ending's label in the catalog's order, removed novels included: what the engagement report labels and orders its rows with. */
export const CATALOG_ENDING_LABELS = `SELECT novel_id AS "novelId", choice_id AS "choiceId", label FROM endings WHERE environment = $1 ORDER BY novel_id, sort_order, choice_id`;

/**
 * PgEngagementRepository: the engagement report's three statements, the service's own texts
 * and parameters ($1..$7 from engagementCountParameters). The ending counts come unlabelled,
 * unordered: the server labels and orders them from CATALOG_ENDING_LABELS, as the service does.
 */
export { ENGAGEMENT_STATEMENTS, engagementCountParameters } from '../../src/modules/analytics/queries.js';
/** $8 of ENGAGEMENT_STATEMENTS.endingCounts: the smallest ending cohort a report shows (the service's MINIMUM_COHORT_SIZE, DECISIONS 14). */
export const ENGAGEMENT_MINIMUM_COHORT = 20;
