/**
 * The statements the service runs on the hot paths, copied verbatim so that PostgreSQL
 * does the same work for both servers. Each names the
 * repository method it mirrors. When a repository changes, change its copy here: the
 * bench's SQL check (pg_stat_statements, see bench/sql-check.ts) lists any statement
 * that only one of the two servers runs.
 */

const NOVEL_SELECT = `id, title, synopsis, author, category_id, tags, language, cover_url, total_chapters, has_audio, updated_at`;
const NOVEL_SELECT_AS_N = NOVEL_SELECT.split(', ').map((column) => `n.${column}`).join(', ');
const NARRATION_SELECT_AS_C = ['number', 'audio_status', 'audio_key', 'audio_bytes', 'audio_duration_seconds', 'audio_bitrate_kbps'].map((column) => `c.${column}`).join(', ');

/** TypeOrmCatalogRepository.categories: the ORM's find, as it sends it (the same text, so pg_stat_statements sees the same statement). */
export const CATEGORIES = `SELECT "CategoryEntity"."environment" AS "CategoryEntity_environment", "CategoryEntity"."id" AS "CategoryEntity_id", "CategoryEntity"."name" AS "CategoryEntity_name", "CategoryEntity"."sort_order" AS "CategoryEntity_sort_order" FROM "categories" "CategoryEntity" WHERE (("CategoryEntity"."environment" = $1)) ORDER BY "CategoryEntity"."sort_order" ASC, "CategoryEntity"."id" ASC`;

/** TypeOrmCatalogRepository.findNovels, unfiltered: the page and the total in one statement. */
export const NOVEL_PAGE = `SELECT t.total, p.*
         FROM (SELECT count(*)::int AS total FROM novels WHERE environment = $1 AND status = 'published') AS t
         LEFT JOIN LATERAL (
           SELECT ${NOVEL_SELECT} FROM novels
            WHERE environment = $1 AND status = 'published'
            ORDER BY title, id LIMIT $2 OFFSET $3) AS p ON true
        ORDER BY p.title, p.id`;

/** TypeOrmCatalogRepository.publishedNovel. */
export const PUBLISHED_NOVEL = `SELECT ${NOVEL_SELECT} FROM novels WHERE environment = $1 AND id = $2 AND status = 'published'`;

/** TypeOrmCatalogRepository.publishedNovels. */
export const PUBLISHED_NOVELS = `SELECT ${NOVEL_SELECT} FROM novels WHERE environment = $1 AND id = ANY ($2::text[]) AND status = 'published'`;

/** TypeOrmCatalogRepository.publishedNarration: the novel and one chapter's audio, never its text. */
export const PUBLISHED_NARRATION = `SELECT ${NOVEL_SELECT_AS_N}, ${NARRATION_SELECT_AS_C}
         FROM novels n
         LEFT JOIN chapters c ON c.environment = n.environment AND c.novel_id = n.id AND c.number = $3
        WHERE n.environment = $1 AND n.id = $2 AND n.status = 'published'`;

/** TypeOrmCatalogRepository.chapters. */
export const CHAPTER_SUMMARIES = `SELECT number, title, duration_seconds AS "durationSeconds" FROM chapters WHERE environment = $1 AND novel_id = $2 ORDER BY number`;

/** TypeOrmCatalogRepository.chapter (the text included). */
export const CHAPTER = `SELECT novel_id, number, title, duration_seconds, body, audio_status, audio_key, audio_bytes, audio_duration_seconds, audio_bitrate_kbps
         FROM chapters WHERE environment = $1 AND novel_id = $2 AND number = $3`;

/** TypeOrmEntitlementRepository.listForSubscriber (features). */
export const ENTITLEMENTS = `SELECT product, status, partner_plan AS "partnerPlan", internal_plan AS "internalPlan", updated_at AS "updatedAt"
         FROM entitlements WHERE partner_id = $1 AND environment = $2 AND subscriber_id = $3 ORDER BY product`;

const PROGRESS_SELECT = `novel_id AS "novelId", started_at AS "startedAt", current_chapter AS "currentChapter", finished_at AS "finishedAt", chosen_choice_id AS "chosenChoiceId"`;

/** TypeOrmReadingProgressRepository.find. */
export const PROGRESS = `SELECT ${PROGRESS_SELECT} FROM novel_progress WHERE partner_id = $1 AND environment = $2 AND subscriber_id = $3 AND novel_id = $4`;

/** TypeOrmReadingProgressRepository.listForSubscriber. */
export const PROGRESS_LIST = `SELECT ${PROGRESS_SELECT} FROM novel_progress WHERE partner_id = $1 AND environment = $2 AND subscriber_id = $3 ORDER BY started_at DESC, novel_id`;

/** TypeOrmReadingProgressRepository.advanceCurrentChapter. */
export const ADVANCE_CURRENT_CHAPTER = `UPDATE novel_progress SET current_chapter = $5
        WHERE partner_id = $1 AND environment = $2 AND subscriber_id = $3 AND novel_id = $4 AND current_chapter < $5`;

/** TypeOrmPlaybackPositionRepository.find. */
export const POSITION = `SELECT novel_id AS "novelId", chapter_number AS "chapterNumber", position_seconds AS "positionSeconds", updated_at AS "updatedAt"
         FROM playback_positions WHERE partner_id = $1 AND environment = $2 AND subscriber_id = $3 AND novel_id = $4`;

/** TypeOrmPlaybackPositionRepository.upsert. */
export const UPSERT_POSITION = `INSERT INTO playback_positions (partner_id, environment, subscriber_id, novel_id, chapter_number, position_seconds, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (partner_id, environment, subscriber_id, novel_id) DO UPDATE
         SET chapter_number = EXCLUDED.chapter_number, position_seconds = EXCLUDED.position_seconds, updated_at = EXCLUDED.updated_at
       RETURNING chapter_number, position_seconds, updated_at`;

/** PgActivityRepository.record. */
export const RECORD_ACTIVITY = `INSERT INTO reading_activity (partner_id, environment, subscriber_id, novel_id, chapter_number, kind, occurred_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`;

/** PgStreamAuditRepository.append. */
export const RECORD_STREAM_ISSUED = `INSERT INTO stream_url_issues (partner_id, environment, client_id, subscriber_id, novel_id, chapter_number, issued_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`;

/** TypeOrmCredentialRepository.findByClientId (token endpoint, and the revocation check every CREDENTIAL_CACHE_SECONDS). */
export const CREDENTIAL = `SELECT client_id AS "clientId", partner_id AS "partnerId", secret_hash AS "secretHash", scopes, environment, revoked_at AS "revokedAt"
         FROM credentials WHERE client_id = $1`;

/** TypeOrmSigningKeyRepository.list. */
export const SIGNING_KEYS = `SELECT kid, public_jwk, sealed_private_key, signs_from FROM signing_keys WHERE issuer = $1`;

/**
 * The engagement report (branch kids, PgEngagementRepository, rollups of migration
 * 1763900400000): served only when those tables exist.
 */
export const ENGAGEMENT_READING_TOTALS = `SELECT
         (SELECT count(*) FROM reading_reader_days
          WHERE partner_id = $1 AND environment = $2 AND day BETWEEN $3::date AND $4::date AND previous_day < $3::date)::int AS active_readers,
         (SELECT count(*) FROM reading_chapter_days
          WHERE partner_id = $1 AND environment = $2 AND day BETWEEN $3::date AND $4::date AND previous_day < $3::date)::int AS chapters_read`;
export const ENGAGEMENT_STARTED_NOVELS = `SELECT count(*)::int AS started, count(finished_at)::int AS finished
       FROM novel_progress
       WHERE partner_id = $1 AND environment = $2 AND started_at >= $3 AND started_at < $4`;
export const ENGAGEMENT_ENDING_COUNTS = `SELECT c.novel_id, c.choice_id, coalesce(e.label, c.choice_id) AS label, c.count
       FROM (SELECT novel_id, chosen_choice_id AS choice_id, count(*)::int AS count
               FROM novel_progress
              WHERE partner_id = $1 AND environment = $2 AND finished_at >= $3 AND finished_at < $4
                AND chosen_choice_id IS NOT NULL
              GROUP BY novel_id, chosen_choice_id) AS c
       LEFT JOIN endings e ON e.environment = $2 AND e.novel_id = c.novel_id AND e.choice_id = c.choice_id
       ORDER BY c.novel_id, e.sort_order NULLS LAST, c.choice_id`;
