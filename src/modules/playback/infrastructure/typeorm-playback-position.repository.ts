import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/db.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { SUBSCRIBER_FEATURES_PARAMETERS } from '../../entitlements/index.js';
import { PROGRESS_WITH_FEATURES_SQL, readerOfRow, type ProgressWithFeaturesRow, type ReleaseCondition } from '../../reading/index.js';
import type { PlaybackPosition } from '../domain/playback-position.js';
import { PlaybackPositionRepository, type PositionWithReader } from '../domain/playback-position.repository.js';
import { PlaybackPositionEntity } from './playback.entities.js';

/** The PUT's first condition: the chapter is released (the novel finished, or started before the drip's cutoff of the plan: ReleaseCondition). */
const READER_AND_RELEASE = `reader AS (${PROGRESS_WITH_FEATURES_SQL} AND p.novel_id = $7
  ), released AS (
    SELECT FROM reader
     WHERE "finishedAt" IS NOT NULL OR "startedAt" < CASE WHEN "earlyAccess" THEN $12::timestamptz ELSE $11::timestamptz END
  )`;

/**
 * Stores the position; replaces the stored one: concurrent writers of one key queue on the
 * row instead of racing to insert it.
 */
const STORE_POSITION = `INSERT INTO playback_positions (partner_id, environment, subscriber_id, novel_id, chapter_number, position_seconds, updated_at)
    SELECT $1::uuid, $2::text, $3::text, $7::text, $8::integer, $9::integer, $10::timestamptz FROM released`;
const REPLACE_STORED = `ON CONFLICT (partner_id, environment, subscriber_id, novel_id) DO UPDATE
      SET chapter_number = EXCLUDED.chapter_number, position_seconds = EXCLUDED.position_seconds, updated_at = EXCLUDED.updated_at
    RETURNING chapter_number, position_seconds, updated_at`;

/**
 * Moves reading's current_chapter forward. The usual write, a position within the chapter
 * being listened to, does not: the reader's row, already read, says so and the UPDATE is
 * skipped without a second index lookup (a one-time filter); the UPDATE's own condition
 * still decides under the row lock.
 */
const ADVANCE_CURRENT_CHAPTER = `UPDATE novel_progress SET current_chapter = $8
     WHERE partner_id = $1 AND environment = $2 AND subscriber_id = $3 AND novel_id = $7 AND current_chapter < $8
       AND (SELECT "currentChapter" FROM reader) < $8`;

/**
 * The usual playback PUT, a save a few seconds after the last one (ADR 0114): when the
 * chapter is released AND the subscriber's listening to it is already recorded for the UTC
 * day of the write (analytics' rollup row exists), stores the position and moves the
 * current chapter; the listening adds nothing to record. Otherwise it writes nothing and
 * says which: not released (the PUT is refused) or not yet recorded (the full write below
 * follows). It names no table with a trigger or partitions, the cost of the full write.
 */
const UPSERT_POSITION_IF_LISTENING_RECORDED = `WITH ${READER_AND_RELEASE}, recorded AS (
    SELECT FROM reading_chapter_days
     WHERE partner_id = $1 AND environment = $2 AND subscriber_id = $3 AND novel_id = $7 AND chapter_number = $8
       AND day = ($10::timestamptz AT TIME ZONE 'UTC')::date
  ), stored AS (
    ${STORE_POSITION} WHERE EXISTS (SELECT FROM recorded)
    ${REPLACE_STORED}
  ), advanced AS (
    ${ADVANCE_CURRENT_CHAPTER} AND EXISTS (SELECT FROM released) AND EXISTS (SELECT FROM recorded)
  )
  SELECT s.chapter_number, s.position_seconds, s.updated_at, r.*, EXISTS (SELECT FROM released) AS released
    FROM reader r LEFT JOIN stored s ON true`;

/**
 * The first save of a chapter on a UTC day: when the chapter is released, stores the
 * position, records the listening in analytics' table (its rollup trigger fires as for any
 * insert) and moves the current chapter. One statement is one implicit transaction: all of
 * it or none.
 */
const UPSERT_LISTENING_IF_RELEASED = `WITH ${READER_AND_RELEASE}, stored AS (
    ${STORE_POSITION}
    ${REPLACE_STORED}
  ), listened AS (
    INSERT INTO reading_activity (partner_id, environment, subscriber_id, novel_id, chapter_number, kind, occurred_at)
    SELECT $1::uuid, $2::text, $3::text, $7::text, $8::integer, 'audio', $10::timestamptz FROM released
  ), advanced AS (
    ${ADVANCE_CURRENT_CHAPTER} AND EXISTS (SELECT FROM released)
  )
  SELECT s.chapter_number, s.position_seconds, s.updated_at, r.* FROM reader r LEFT JOIN stored s ON true`;

/** The stored position beside the reader (the drip's inputs), in one statement: playback's GET. */
const POSITION_WITH_READER = `SELECT pp.chapter_number, pp.position_seconds, pp.updated_at, r.*
    FROM (${PROGRESS_WITH_FEATURES_SQL} AND p.novel_id = $7) AS r
    LEFT JOIN playback_positions pp ON pp.partner_id = $1 AND pp.environment = $2 AND pp.subscriber_id = $3 AND pp.novel_id = $7`;

type PositionRow = ProgressWithFeaturesRow & { chapter_number: number | null; position_seconds: number | null; updated_at: Date | null };

const positionOf = (novelId: string, row: PositionRow): PlaybackPosition | null =>
  row.chapter_number === null ? null : { novelId, chapterNumber: row.chapter_number, positionSeconds: row.position_seconds!, updatedAt: row.updated_at! };

const subscriberParameters = (tenant: Tenant, subscriberId: string) => [tenant.partnerId, tenant.environment, subscriberId, ...SUBSCRIBER_FEATURES_PARAMETERS];

@Injectable()
export class TypeOrmPlaybackPositionRepository extends PlaybackPositionRepository {
  constructor(private readonly db: Db) {
    super();
  }

  async upsertListeningIfReleased(tenant: Tenant, subscriberId: string, position: PlaybackPosition, released: ReleaseCondition): Promise<PositionWithReader> {
    const parameters = [
      ...subscriberParameters(tenant, subscriberId),
      position.novelId,
      position.chapterNumber,
      position.positionSeconds,
      position.updatedAt,
      released.startedBefore.standard,
      released.startedBefore.earlyAccess,
    ];
    let [row] = await this.db.prepared<PositionRow & { released: boolean }>(
      'playback.upsert-position-if-listening-recorded',
      UPSERT_POSITION_IF_LISTENING_RECORDED,
      parameters,
    );
    if (row.chapter_number === null && row.released) {
      [row] = await this.db.prepared<PositionRow & { released: boolean }>('playback.upsert-listening-if-released', UPSERT_LISTENING_IF_RELEASED, parameters);
    }
    return { position: positionOf(position.novelId, row), ...readerOfRow(row) };
  }

  async findWithReader(tenant: Tenant, subscriberId: string, novelId: string): Promise<PositionWithReader> {
    const [row] = await this.db.prepared<PositionRow>('playback.position-with-reader', POSITION_WITH_READER, [...subscriberParameters(tenant, subscriberId), novelId]);
    return { position: positionOf(novelId, row), ...readerOfRow(row) };
  }

  async delete(tenant: Tenant, subscriberId: string, novelId: string): Promise<void> {
    await this.db.manager.getRepository(PlaybackPositionEntity).delete({ partnerId: tenant.partnerId, environment: tenant.environment, subscriberId, novelId });
  }
}
