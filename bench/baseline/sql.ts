/**
 * The statements the service runs on the hot paths, copied verbatim so that PostgreSQL
 * does the same work for both servers (the baseline loads no Nest, so it cannot build them
 * as the service does). Each names the repository method it mirrors. When a repository
 * changes, change its copy here: test/architecture/bench-statements.e2e-spec.ts fails on
 * drift, and the bench's SQL check (pg_stat_statements, bench/load/sql-check.ts) lists any
 * statement that only one of the two servers runs. Reference
 * data (categories, novels, chapters) is served from memory by both servers (ADR 0123):
 * the baseline loads it once at start with CATALOG_*.
 */

/** Feature lists of src/modules/entitlements/domain/plans.ts (FEATURE_GRANTS). */
export const FEATURE_PARAMETERS = [
  ['textapp', 'audioapp'],
  ['audio_standard', 'audio_early'],
  ['text_early', 'audio_early'],
];

/**
 * The hot statements of TypeOrmReadingProgressRepository and PgPlaybackPositionRepository,
 * as they compose them from the entitlements, reading and analytics queries (ADR 0025).
 * Placeholders: $1–$3 the feature lists (FEATURE_PARAMETERS), $4–$6 partner, environment
 * and subscriber, then each statement's own (see the bench's baseline server). A test
 * (test/architecture/bench-statements.e2e-spec.ts) fails when these drift from the service's.
 */

/** TypeOrmReadingProgressRepository.findWithFeatures: …, $7 the novel. */
export const READER = {
  name: 'reading.progress-with-features',
  text: `SELECT p.novel_id AS "novelId", p.started_at AS "startedAt", p.current_chapter AS "currentChapter",
         p.finished_at AS "finishedAt", p.chosen_choice_id AS "chosenChoiceId", f.reading, f.audio, f."earlyAccess"
    FROM (SELECT coalesce(bool_or(product = ANY ($1)), false) AS reading,
         coalesce(bool_or(internal_plan = ANY ($2)), false) AS audio,
         coalesce(bool_or(internal_plan = ANY ($3)), false) AS "earlyAccess"
    FROM entitlements
   WHERE partner_id = $4 AND environment = $5 AND subscriber_id = $6 AND status = 'active') AS f
    LEFT JOIN novel_progress p ON p.partner_id = $4 AND p.environment = $5 AND p.subscriber_id = $6 AND p.novel_id = $7`,
};

/** TypeOrmReadingProgressRepository.listWithFeatures. */
export const READER_LIST = {
  name: 'reading.progress-list-with-features',
  text: `SELECT p.novel_id AS "novelId", p.started_at AS "startedAt", p.current_chapter AS "currentChapter",
         p.finished_at AS "finishedAt", p.chosen_choice_id AS "chosenChoiceId", f.reading, f.audio, f."earlyAccess"
    FROM (SELECT coalesce(bool_or(product = ANY ($1)), false) AS reading,
         coalesce(bool_or(internal_plan = ANY ($2)), false) AS audio,
         coalesce(bool_or(internal_plan = ANY ($3)), false) AS "earlyAccess"
    FROM entitlements
   WHERE partner_id = $4 AND environment = $5 AND subscriber_id = $6 AND status = 'active') AS f
    LEFT JOIN novel_progress p ON p.partner_id = $4 AND p.environment = $5 AND p.subscriber_id = $6 ORDER BY p.started_at DESC, p.novel_id`,
};

/** PgPlaybackPositionRepository.findWithReader: …, $7 the novel. */
export const POSITION_WITH_READER = {
  name: 'playback.position-with-reader',
  text: `SELECT pp.chapter_number, pp.position_seconds, pp.updated_at, r.*
    FROM (SELECT p.novel_id AS "novelId", p.started_at AS "startedAt", p.current_chapter AS "currentChapter",
         p.finished_at AS "finishedAt", p.chosen_choice_id AS "chosenChoiceId", f.reading, f.audio, f."earlyAccess"
    FROM (SELECT coalesce(bool_or(product = ANY ($1)), false) AS reading,
         coalesce(bool_or(internal_plan = ANY ($2)), false) AS audio,
         coalesce(bool_or(internal_plan = ANY ($3)), false) AS "earlyAccess"
    FROM entitlements
   WHERE partner_id = $4 AND environment = $5 AND subscriber_id = $6 AND status = 'active') AS f
    LEFT JOIN novel_progress p ON p.partner_id = $4 AND p.environment = $5 AND p.subscriber_id = $6 AND p.novel_id = $7) AS r
    LEFT JOIN playback_positions pp ON pp.partner_id = $4 AND pp.environment = $5 AND pp.subscriber_id = $6 AND pp.novel_id = $7`,
};

/**
 * PgPlaybackPositionRepository.upsertListeningIfReleased, the usual save: …, $7 novel,
 * $8 early-access cutoff, $9 standard cutoff, $10 chapter, $11 time of the write, $12 seconds.
 */
export const UPSERT_POSITION_IF_LISTENING_RECORDED = {
  name: 'playback.upsert-position-if-listening-recorded',
  text: `WITH reader AS (SELECT p.novel_id AS "novelId", p.started_at AS "startedAt", p.current_chapter AS "currentChapter",
         p.finished_at AS "finishedAt", p.chosen_choice_id AS "chosenChoiceId", f.reading, f.audio, f."earlyAccess"
    FROM (SELECT coalesce(bool_or(product = ANY ($1)), false) AS reading,
         coalesce(bool_or(internal_plan = ANY ($2)), false) AS audio,
         coalesce(bool_or(internal_plan = ANY ($3)), false) AS "earlyAccess"
    FROM entitlements
   WHERE partner_id = $4 AND environment = $5 AND subscriber_id = $6 AND status = 'active') AS f
    LEFT JOIN novel_progress p ON p.partner_id = $4 AND p.environment = $5 AND p.subscriber_id = $6 AND p.novel_id = $7
  ), released AS (
    SELECT FROM reader
     WHERE "finishedAt" IS NOT NULL OR "startedAt" < CASE WHEN "earlyAccess" THEN $8::timestamptz ELSE $9::timestamptz END
  ), recorded AS (SELECT FROM reading_chapter_days
     WHERE partner_id = $4 AND environment = $5 AND subscriber_id = $6
       AND novel_id = $7 AND chapter_number = $10 AND day = ($11::timestamptz AT TIME ZONE 'UTC')::date
  ), stored AS (INSERT INTO playback_positions (partner_id, environment, subscriber_id, novel_id, chapter_number, position_seconds, updated_at)
    SELECT $4::uuid, $5::text, $6::text, $7::text, $10::integer, $12::integer, $11::timestamptz FROM released WHERE EXISTS (SELECT FROM recorded)
    ON CONFLICT (partner_id, environment, subscriber_id, novel_id) DO UPDATE
      SET chapter_number = EXCLUDED.chapter_number, position_seconds = EXCLUDED.position_seconds, updated_at = EXCLUDED.updated_at
    RETURNING chapter_number, position_seconds, updated_at
  ), advanced AS (UPDATE novel_progress SET current_chapter = $10
     WHERE partner_id = $4 AND environment = $5 AND subscriber_id = $6 AND novel_id = $7
       AND current_chapter < $10 AND (SELECT "currentChapter" FROM reader) < $10 AND EXISTS (SELECT FROM released) AND EXISTS (SELECT FROM recorded)
  )
  SELECT s.chapter_number, s.position_seconds, s.updated_at, r.*, EXISTS (SELECT FROM released) AS released
    FROM reader r LEFT JOIN stored s ON true`,
};

/**
 * PgPlaybackPositionRepository.upsertListeningIfReleased, the first save of a chapter
 * on a UTC day: …, $7 novel, $8 early-access cutoff, $9 standard cutoff, $10 chapter,
 * $11 seconds, $12 time of the write, $13 the activity kind ('audio').
 */
export const UPSERT_LISTENING_IF_RELEASED = {
  name: 'playback.upsert-listening-if-released',
  text: `WITH reader AS (SELECT p.novel_id AS "novelId", p.started_at AS "startedAt", p.current_chapter AS "currentChapter",
         p.finished_at AS "finishedAt", p.chosen_choice_id AS "chosenChoiceId", f.reading, f.audio, f."earlyAccess"
    FROM (SELECT coalesce(bool_or(product = ANY ($1)), false) AS reading,
         coalesce(bool_or(internal_plan = ANY ($2)), false) AS audio,
         coalesce(bool_or(internal_plan = ANY ($3)), false) AS "earlyAccess"
    FROM entitlements
   WHERE partner_id = $4 AND environment = $5 AND subscriber_id = $6 AND status = 'active') AS f
    LEFT JOIN novel_progress p ON p.partner_id = $4 AND p.environment = $5 AND p.subscriber_id = $6 AND p.novel_id = $7
  ), released AS (
    SELECT FROM reader
     WHERE "finishedAt" IS NOT NULL OR "startedAt" < CASE WHEN "earlyAccess" THEN $8::timestamptz ELSE $9::timestamptz END
  ), stored AS (INSERT INTO playback_positions (partner_id, environment, subscriber_id, novel_id, chapter_number, position_seconds, updated_at)
    SELECT $4::uuid, $5::text, $6::text, $7::text, $10::integer, $11::integer, $12::timestamptz FROM released WHERE true
    ON CONFLICT (partner_id, environment, subscriber_id, novel_id) DO UPDATE
      SET chapter_number = EXCLUDED.chapter_number, position_seconds = EXCLUDED.position_seconds, updated_at = EXCLUDED.updated_at
    RETURNING chapter_number, position_seconds, updated_at
  ), listened AS (INSERT INTO reading_activity (partner_id, environment, subscriber_id, novel_id, chapter_number, kind, occurred_at)
    SELECT $4::uuid, $5::text, $6::text, $7::text, $10::integer, $13, $12::timestamptz FROM released
  ), advanced AS (UPDATE novel_progress SET current_chapter = $10
     WHERE partner_id = $4 AND environment = $5 AND subscriber_id = $6 AND novel_id = $7
       AND current_chapter < $10 AND (SELECT "currentChapter" FROM reader) < $10 AND EXISTS (SELECT FROM released)
  )
  SELECT s.chapter_number, s.position_seconds, s.updated_at, r.* FROM reader r LEFT JOIN stored s ON true`,
};

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

/** PgEngagementRepository: the engagement report's three statements. */
export const ENGAGEMENT_READING_TOTALS = `SELECT
         (SELECT count(*) FROM reading_reader_days
          WHERE partner_id = $1 AND environment = $2 AND day BETWEEN $3::date AND $4::date AND previous_day < $3::date)::int AS active_readers,
         (SELECT count(*) FROM reading_chapter_days
          WHERE partner_id = $1 AND environment = $2 AND day BETWEEN $3::date AND $4::date AND previous_day < $3::date)::int AS chapters_read`;
export const ENGAGEMENT_STARTED_NOVELS = `SELECT count(*)::int AS started, count(finished_at)::int AS finished
       FROM novel_progress
       WHERE partner_id = $1 AND environment = $2 AND started_at >= $3 AND started_at < $4`;
/** $5 of ENGAGEMENT_ENDING_COUNTS: the smallest ending cohort a report shows (the service's MINIMUM_COHORT_SIZE, DECISIONS 14). */
export const ENGAGEMENT_MINIMUM_COHORT = 20;
export const ENGAGEMENT_ENDING_COUNTS = `SELECT c.novel_id AS "novelId", c.choice_id AS "choiceId", coalesce(e.label, c.choice_id) AS label, c.count
       FROM (SELECT novel_id, chosen_choice_id AS choice_id, count(*)::int AS count
               FROM novel_progress
              WHERE partner_id = $1 AND environment = $2 AND finished_at >= $3 AND finished_at < $4
                AND chosen_choice_id IS NOT NULL
              GROUP BY novel_id, chosen_choice_id
             HAVING count(*) >= $5) AS c
       LEFT JOIN endings e ON e.environment = $2 AND e.novel_id = c.novel_id AND e.choice_id = c.choice_id
       ORDER BY c.novel_id, e.sort_order NULLS LAST, c.choice_id`;
