import { Injectable } from '@nestjs/common';
import { IsNull, LessThan } from 'typeorm';
import { Db } from '../../../shared/persistence/typeorm-unit-of-work.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import type { NovelProgress } from '../domain/novel-progress.js';
import { ReadingProgressRepository } from '../domain/reading-progress.repository.js';
import { NovelProgressEntity } from './reading.entities.js';

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

  async find(tenant: Tenant, subscriberId: string, novelId: string): Promise<NovelProgress | null> {
    const row = await this.rows.findOneBy({ ...subscriberKey(tenant, subscriberId), novelId });
    return row ? toProgress(row) : null;
  }

  async listForSubscriber(tenant: Tenant, subscriberId: string): Promise<NovelProgress[]> {
    const rows = await this.rows.find({ where: subscriberKey(tenant, subscriberId), order: { startedAt: 'DESC', novelId: 'ASC' } });
    return rows.map(toProgress);
  }

  async unfinishedNovelIds(tenant: Tenant, subscriberId: string): Promise<string[]> {
    const rows = await this.rows.find({ select: { novelId: true }, where: { ...subscriberKey(tenant, subscriberId), finishedAt: IsNull() } });
    return rows.map((row) => row.novelId);
  }

  async insert(tenant: Tenant, subscriberId: string, novelId: string, startedAt: Date): Promise<NovelProgress> {
    const row = { ...subscriberKey(tenant, subscriberId), novelId, startedAt, currentChapter: 1, finishedAt: null, chosenChoiceId: null };
    await this.rows.insert(row);
    return toProgress(row);
  }

  async delete(tenant: Tenant, subscriberId: string, novelId: string): Promise<void> {
    await this.rows.delete({ ...subscriberKey(tenant, subscriberId), novelId });
  }

  async finish(tenant: Tenant, subscriberId: string, novelId: string, choiceId: string, finishedAt: Date): Promise<void> {
    await this.rows.update({ ...subscriberKey(tenant, subscriberId), novelId }, { finishedAt, chosenChoiceId: choiceId });
  }

  async advanceCurrentChapter(tenant: Tenant, subscriberId: string, novelId: string, chapterNumber: number): Promise<void> {
    // The condition sits in the one UPDATE, so concurrent reads of different chapters only move it forward.
    await this.rows.update({ ...subscriberKey(tenant, subscriberId), novelId, currentChapter: LessThan(chapterNumber) }, { currentChapter: chapterNumber });
  }
}

function toProgress(row: Omit<NovelProgressEntity, 'partnerId' | 'environment' | 'subscriberId'>): NovelProgress {
  return {
    novelId: row.novelId,
    startedAt: row.startedAt,
    currentChapter: row.currentChapter,
    finishedAt: row.finishedAt,
    chosenChoiceId: row.chosenChoiceId,
  };
}
