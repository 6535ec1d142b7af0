import { Injectable, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { Cron, CronExpression } from '@nestjs/schedule';
import { AppConfig } from '../../../config/app-config.js';
import { isoDate, MAX_WINDOW_DAYS } from '../domain/reporting-window.js';
import { RollupRetentionRepository } from '../domain/rollup-retention.repository.js';

/** Rows changed per statement and table: short transactions beside the activity writers. */
const BATCH_SIZE = 2_000;

/**
 * Keeps the subscriber ids of the daily rollups no longer than the raw activity they come
 * from (`ACTIVITY_RETENTION_DAYS`), but at least a report window and a day: a reader's new
 * day is linked to its previous one up to 366 days back, and that link must still find
 * the reader (ADR 0143). Older rows keep their figures under stand-ins, so every report
 * answers as before. Daily; replicas skip each other's rows, and a stand-in is final.
 */
@Injectable()
export class RollupRetentionJob {
  private readonly logger = new Logger('RollupRetention');

  constructor(
    private readonly rollups: RollupRetentionRepository,
    private readonly config: AppConfig,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  /** Days a rollup row keeps its subscriber id. */
  get retentionDays(): number {
    return Math.max(this.config.activityRetentionDays, MAX_WINDOW_DAYS + 1);
  }

  @Cron(CronExpression.EVERY_DAY_AT_3AM, { name: 'rollup-retention' })
  async onSchedule(): Promise<void> {
    // The CLI builds the same modules without an HTTP server; scheduled work is the service's.
    if (!this.adapterHost.httpAdapter) return;
    try {
      await this.anonymiseExpired();
    } catch (error) {
      this.logger.error({ msg: 'rollup retention run failed', err: String(error) });
    }
  }

  /** Replaces the ids of every rollup row past retention; returns how many. */
  async anonymiseExpired(now = new Date()): Promise<number> {
    const cutoff = isoDate(new Date(now.getTime() - this.retentionDays * 86_400_000));
    let changed = 0;
    for (;;) {
      const batch = await this.rollups.anonymiseBefore(cutoff, BATCH_SIZE);
      changed += batch;
      if (batch === 0) return changed;
    }
  }
}
