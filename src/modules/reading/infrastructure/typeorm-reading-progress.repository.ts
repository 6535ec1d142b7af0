import { Injectable } from '@nestjs/common';
import { IsNull } from 'typeorm';
import { Db } from '../../../shared/persistence/db.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import type { EntitlementGrant } from '../../entitlements/index.js';
import type { NovelProgress } from '../domain/novel-progress.js';
import { ReadingProgressRepository } from '../domain/reading-progress.repository.js';
import { NovelProgressEntity } from './reading.entities.js';

const PROGRESS_SELECT = `novel_id AS "novelId", started_at AS "startedAt", current_chapter AS "currentChapter", finished_at AS "finishedAt", chosen_choice_id AS "chosenChoiceId"`;

/**
 * A subscriber read is one round trip: its progress and its entitlements come back in one
 * statement. The entitlements table belongs to the entitlements module; reading reads it
 * here, read only (ADR 0083).
 */
const PROGRESS_JSON = `json_build_object('novelId', novel_id, 'startedAt', started_at, 'currentChapter', current_chapter,
  'finishedAt', finished_at, 'chosenChoiceId', chosen_choice_id)`;
const GRANTS_JSON = `(SELECT coalesce(json_agg(json_build_object('product', product, 'status', status, 'internalPlan', internal_plan)), '[]')
  FROM entitlements WHERE partner_id = $1 AND environment = $2 AND subscriber_id = $3)`;

/** Progress as JSON carries its instants as text. */
type ProgressJson = Omit<NovelProgress, 'startedAt' | 'finishedAt'> & { startedAt: string; finishedAt: string | null };

const fromJson = (json: ProgressJson): NovelProgress => ({
  ...json,
  startedAt: new Date(json.startedAt),
  finishedAt: json.finishedAt === null ? null : new Date(json.finishedAt),
});

const subscriberKey = (tenant: Tenant, subscriberId: string) => ({
  partnerId: tenant.partnerId,
  environment: tenant.environment,
  subscriberId,
});

@Injectable()
export class TypeOrmReadingProgressRepository extends ReadingProgressRepository {
  constructor(private readonly db: Db) {
    super();
  }

  private get rows() {
    return this.db.manager.getRepository(NovelProgressEntity);
  }

  async lockSubscriber(tenant: Tenant, subscriberId: string): Promise<void> {
    // A 64-bit hash of the key: a collision only makes two subscribers wait for each other.
    await this.db.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
      `reading:${tenant.partnerId}:${tenant.environment}:${subscriberId}`,
    ]);
  }

  // The hot reads and the per-write update are plain SQL (the bench profile showed the query builder costing
  // more CPU than PostgreSQL spent answering them).
  async find(tenant: Tenant, subscriberId: string, novelId: string): Promise<NovelProgress | null> {
    const [row] = await this.db.query<NovelProgress>(
      `SELECT ${PROGRESS_SELECT} FROM novel_progress WHERE partner_id = $1 AND environment = $2 AND subscriber_id = $3 AND novel_id = $4`,
      [tenant.partnerId, tenant.environment, subscriberId, novelId],
    );
    return row ?? null;
  }

  async findWithGrants(tenant: Tenant, subscriberId: string, novelId: string): Promise<{ progress: NovelProgress | null; grants: EntitlementGrant[] }> {
    const [row] = await this.db.query<{ progress: ProgressJson | null; grants: EntitlementGrant[] }>(
      `SELECT (SELECT ${PROGRESS_JSON} FROM novel_progress
                WHERE partner_id = $1 AND environment = $2 AND subscriber_id = $3 AND novel_id = $4) AS progress,
              ${GRANTS_JSON} AS grants`,
      [tenant.partnerId, tenant.environment, subscriberId, novelId],
    );
    return { progress: row.progress && fromJson(row.progress), grants: row.grants };
  }

  async listWithGrants(tenant: Tenant, subscriberId: string): Promise<{ progress: NovelProgress[]; grants: EntitlementGrant[] }> {
    const [row] = await this.db.query<{ progress: ProgressJson[]; grants: EntitlementGrant[] }>(
      `SELECT (SELECT coalesce(json_agg(${PROGRESS_JSON} ORDER BY started_at DESC, novel_id), '[]') FROM novel_progress
                WHERE partner_id = $1 AND environment = $2 AND subscriber_id = $3) AS progress,
              ${GRANTS_JSON} AS grants`,
      [tenant.partnerId, tenant.environment, subscriberId],
    );
    return { progress: row.progress.map(fromJson), grants: row.grants };
  }

  async unfinishedNovelIds(tenant: Tenant, subscriberId: string): Promise<string[]> {
    const rows = await this.rows.find({ select: { novelId: true }, where: { ...subscriberKey(tenant, subscriberId), finishedAt: IsNull() } });
    return rows.map((row) => row.novelId);
  }

  async insert(tenant: Tenant, subscriberId: string, novelId: string, startedAt: Date): Promise<NovelProgress> {
    const progress: NovelProgress = { novelId, startedAt, currentChapter: 1, finishedAt: null, chosenChoiceId: null };
    await this.rows.insert({ ...subscriberKey(tenant, subscriberId), ...progress });
    return progress;
  }

  async delete(tenant: Tenant, subscriberId: string, novelId: string): Promise<void> {
    await this.rows.delete({ ...subscriberKey(tenant, subscriberId), novelId });
  }

  async finish(tenant: Tenant, subscriberId: string, novelId: string, choiceId: string, finishedAt: Date): Promise<void> {
    await this.rows.update({ ...subscriberKey(tenant, subscriberId), novelId }, { finishedAt, chosenChoiceId: choiceId });
  }

  async advanceCurrentChapter(tenant: Tenant, subscriberId: string, novelId: string, chapterNumber: number): Promise<void> {
    // The condition sits in the one UPDATE, so concurrent reads of different chapters only move it forward.
    await this.db.query(
      `UPDATE novel_progress SET current_chapter = $5
        WHERE partner_id = $1 AND environment = $2 AND subscriber_id = $3 AND novel_id = $4 AND current_chapter < $5`,
      [tenant.partnerId, tenant.environment, subscriberId, novelId, chapterNumber],
    );
  }
}
