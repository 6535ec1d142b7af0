import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/db.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import type { PlaybackPosition } from '../domain/playback-position.js';
import { PlaybackPositionRepository } from '../domain/playback-position.repository.js';
import { PlaybackPositionEntity } from './playback.entities.js';

@Injectable()
export class TypeOrmPlaybackPositionRepository extends PlaybackPositionRepository {
  constructor(private readonly db: Db) {
    super();
  }

  async upsertListening(tenant: Tenant, subscriberId: string, position: PlaybackPosition): Promise<PlaybackPosition> {
    // One INSERT … ON CONFLICT: concurrent writers of the same key queue on the row instead
    // of racing to insert it. The activity row goes to analytics' table (its trigger rolls it up as for any insert)
    // and current_chapter to reading's: written here, in the position's own statement, so a
    // playback PUT is one round trip and one implicit transaction (ADR on hot-path statements).
    const [row] = await this.db.query<{ chapter_number: number; position_seconds: number; updated_at: Date }>(
      `WITH stored AS (
         INSERT INTO playback_positions (partner_id, environment, subscriber_id, novel_id, chapter_number, position_seconds, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (partner_id, environment, subscriber_id, novel_id) DO UPDATE
           SET chapter_number = EXCLUDED.chapter_number, position_seconds = EXCLUDED.position_seconds, updated_at = EXCLUDED.updated_at
         RETURNING chapter_number, position_seconds, updated_at
       ), listened AS (
         INSERT INTO reading_activity (partner_id, environment, subscriber_id, novel_id, chapter_number, kind, occurred_at)
         VALUES ($1, $2, $3, $4, $5, 'audio', $7)
       ), advanced AS (
         UPDATE novel_progress SET current_chapter = $5
          WHERE partner_id = $1 AND environment = $2 AND subscriber_id = $3 AND novel_id = $4 AND current_chapter < $5
       )
       SELECT chapter_number, position_seconds, updated_at FROM stored`,
      [tenant.partnerId, tenant.environment, subscriberId, position.novelId, position.chapterNumber, position.positionSeconds, position.updatedAt],
    );
    return { novelId: position.novelId, chapterNumber: row.chapter_number, positionSeconds: row.position_seconds, updatedAt: row.updated_at };
  }

  async find(tenant: Tenant, subscriberId: string, novelId: string): Promise<PlaybackPosition | null> {
    const [row] = await this.db.query<PlaybackPosition>(
      `SELECT novel_id AS "novelId", chapter_number AS "chapterNumber", position_seconds AS "positionSeconds", updated_at AS "updatedAt"
         FROM playback_positions WHERE partner_id = $1 AND environment = $2 AND subscriber_id = $3 AND novel_id = $4`,
      [tenant.partnerId, tenant.environment, subscriberId, novelId],
    );
    return row ?? null;
  }

  async delete(tenant: Tenant, subscriberId: string, novelId: string): Promise<void> {
    await this.db.manager.getRepository(PlaybackPositionEntity).delete({ partnerId: tenant.partnerId, environment: tenant.environment, subscriberId, novelId });
  }
}
