import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/db.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { answerArguments } from '../../idempotency/queries.js';
import type { ReleaseCondition } from '../../reading/index.js';
import { readerOfRow, type ReaderRow } from '../../reading/queries.js';
import type { PlaybackPosition } from '../domain/playback-position.js';
import { PlaybackPositionRepository, type AnswerToStore, type PositionWithReader } from '../domain/playback-position.repository.js';
import { PLAYBACK_STATEMENTS } from '../queries.js';

type PositionRow = ReaderRow & { chapter_number: number | null; position_seconds: number | null; updated_at: Date | null };
type SaveRow = PositionRow & { released: boolean; answer_stored?: boolean };

/** Playback positions, written and read by the statements of `../queries.ts` (one per request; two for a chapter's first save of a day). */
@Injectable()
export class PgPlaybackPositionRepository extends PlaybackPositionRepository {
  constructor(private readonly db: Db) {
    super();
  }

  async upsertListeningIfReleased(
    tenant: Tenant,
    subscriberId: string,
    position: PlaybackPosition,
    released: ReleaseCondition,
    answer?: AnswerToStore,
  ): Promise<PositionWithReader> {
    const args = {
      partner: tenant.partnerId,
      environment: tenant.environment,
      subscriber: subscriberId,
      novel: position.novelId,
      chapter: position.chapterNumber,
      seconds: position.positionSeconds,
      at: position.updatedAt,
      standardCutoff: released.startedBefore.standard,
      earlyCutoff: released.startedBefore.earlyAccess,
    };
    const { usualSave, firstSaveOfDay, usualSaveAnswered, firstSaveOfDayAnswered } = PLAYBACK_STATEMENTS;
    // A keyed PUT: the same statements, storing its answer with the position (ADR 0144).
    const save = (which: 'usual' | 'first') => {
      if (answer) {
        const keyedArgs = { ...args, ...answerArguments(answer.held, answer.answer) };
        return which === 'usual'
          ? this.db.prepared<SaveRow>('playback.upsert-position-if-listening-recorded.answered', usualSaveAnswered.text, usualSaveAnswered.bind(keyedArgs))
          : this.db.prepared<SaveRow>('playback.upsert-listening-if-released.answered', firstSaveOfDayAnswered.text, firstSaveOfDayAnswered.bind(keyedArgs));
      }
      return which === 'usual'
        ? this.db.prepared<SaveRow>('playback.upsert-position-if-listening-recorded', usualSave.text, usualSave.bind(args))
        : this.db.prepared<SaveRow>('playback.upsert-listening-if-released', firstSaveOfDay.text, firstSaveOfDay.bind(args));
    };
    let [row] = await save('usual');
    if (row.chapter_number === null && row.released) [row] = await save('first');
    return { ...this.withReader(position.novelId, row), ...(answer ? { answerStored: row.answer_stored === true } : {}) };
  }

  async findWithReader(tenant: Tenant, subscriberId: string, novelId: string): Promise<PositionWithReader> {
    const { positionWithReader } = PLAYBACK_STATEMENTS;
    const [row] = await this.db.prepared<PositionRow>(
      'playback.position-with-reader',
      positionWithReader.text,
      positionWithReader.bind({ partner: tenant.partnerId, environment: tenant.environment, subscriber: subscriberId, novel: novelId }),
    );
    return this.withReader(novelId, row);
  }

  async delete(tenant: Tenant, subscriberId: string, novelId: string): Promise<void> {
    await this.db.query(`DELETE FROM playback_positions WHERE partner_id = $1 AND environment = $2 AND subscriber_id = $3 AND novel_id = $4`, [
      tenant.partnerId,
      tenant.environment,
      subscriberId,
      novelId,
    ]);
  }

  private withReader(novelId: string, row: PositionRow): PositionWithReader {
    const position =
      row.chapter_number === null ? null : { novelId, chapterNumber: row.chapter_number, positionSeconds: row.position_seconds!, updatedAt: row.updated_at! };
    return { position, ...readerOfRow(row) };
  }
}
