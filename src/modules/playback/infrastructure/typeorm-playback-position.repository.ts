import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/db.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { SUBSCRIBER_FEATURES_PARAMETERS } from '../../entitlements/index.js';
import { PROGRESS_WITH_FEATURES_SQL, readerOfRow, type ProgressWithFeaturesRow, type ReleaseCondition } from '../../reading/index.js';
import type { PlaybackPosition } from '../domain/playback-position.js';
import { PlaybackPositionRepository, type PositionWithReader } from '../domain/playback-position.repository.js';
import { PlaybackPositionEntity } from './playback.entities.js';

/**
 * The playback PUT in one statement, prepared once per connection (ADR 0107): it reads the
 * reader's progress and early access (the entitlements module's query, ADR 0083), and only
 * when the chapter is released (the novel finished, or started before the drip's cutoff of
 * the plan: ReleaseCondition) upserts the position, records the listening in analytics'
 * table (its rollup trigger fires as for any insert) and moves reading's current_chapter.
 * The usual write, a position within the chapter being listened to, does not move it: the
 * reader's row, already read, says so and the UPDATE is skipped without a second index
 * lookup (a one-time filter); the UPDATE's own condition still decides under the row lock.
 * Concurrent writers of one key queue on the row instead of racing to insert it. One
 * statement is one implicit transaction: all of it or none.
 */
const UPSERT_LISTENING_IF_RELEASED = `WITH reader AS (${PROGRESS_WITH_FEATURES_SQL} AND p.novel_id = $7
  ), released AS (
    SELECT FROM reader
     WHERE "finishedAt" IS NOT NULL OR "startedAt" < CASE WHEN "earlyAccess" THEN $12::timestamptz ELSE $11::timestamptz END
  ), stored AS (
    INSERT INTO playback_positions (partner_id, environment, subscriber_id, novel_id, chapter_number, position_seconds, updated_at)
    SELECT $1::uuid, $2::text, $3::text, $7::text, $8::integer, $9::integer, $10::timestamptz FROM released
    ON CONFLICT (partner_id, environment, subscriber_id, novel_id) DO UPDATE
      SET chapter_number = EXCLUDED.chapter_number, position_seconds = EXCLUDED.position_seconds, updated_at = EXCLUDED.updated_at
    RETURNING chapter_number, position_seconds, updated_at
  ), listened AS (
    INSERT INTO reading_activity (partner_id, environment, subscriber_id, novel_id, chapter_number, kind, occurred_at)
    SELECT $1::uuid, $2::text, $3::text, $7::text, $8::integer, 'audio', $10::timestamptz FROM released
  ), advanced AS (
    UPDATE novel_progress SET current_chapter = $8
     WHERE partner_id = $1 AND environment = $2 AND subscriber_id = $3 AND novel_id = $7 AND current_chapter < $8
       AND EXISTS (SELECT FROM released) AND (SELECT "currentChapter" FROM reader) < $8
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
    const [row] = await this.db.prepared<PositionRow>('playback.upsert-listening-if-released', UPSERT_LISTENING_IF_RELEASED, [
      ...subscriberParameters(tenant, subscriberId),
      position.novelId,
      position.chapterNumber,
      position.positionSeconds,
      position.updatedAt,
      released.startedBefore.standard,
      released.startedBefore.earlyAccess,
    ]);
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
