import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { Cron, CronExpression } from '@nestjs/schedule';
import { AppConfig } from '../config/app-config.js';
import { Db } from '../shared/persistence/db.js';

/** Months with a partition ahead of the current one: writes never depend on a run being on time. */
export const MONTHS_AHEAD = 3;

interface MonthlyTable {
  table: string;
  retentionDays: number;
}

export interface PartitionChanges {
  table: string;
  created: number;
  dropped: number;
}

/**
 * Keeps the tables partitioned by month (ADR 0100) ready and within retention: creates the
 * partitions of the current month and MONTHS_AHEAD after it, and drops every partition whose
 * whole month is older than the table's retention (ADR 0100): rows are never deleted one
 * by one. Runs at start, so a fresh service has its months, then every hour. Replicas may
 * run it at the same moment: the database functions it calls (migration 1763900800000)
 * take turns per table on an advisory lock and create each month once.
 */
@Injectable()
export class PartitionMaintenanceJob implements OnApplicationBootstrap {
  private readonly logger = new Logger('PartitionMaintenance');

  constructor(
    private readonly db: Db,
    private readonly config: AppConfig,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  onApplicationBootstrap(): Promise<void> {
    return this.onSchedule();
  }

  @Cron(CronExpression.EVERY_HOUR, { name: 'partition-maintenance' })
  async onSchedule(): Promise<void> {
    // The CLI builds the same modules without an HTTP server; scheduled work is the service's.
    if (!this.adapterHost.httpAdapter) return;
    try {
      await this.maintain();
    } catch (error) {
      // The months ahead cover a failed run; the next one retries.
      this.logger.error({ msg: 'partition maintenance failed', err: String(error) });
    }
  }

  /** Creates the months due and drops the months past retention, table by table. */
  async maintain(now = new Date()): Promise<PartitionChanges[]> {
    const changes: PartitionChanges[] = [];
    for (const { table, retentionDays } of this.tables()) {
      const [{ created }] = await this.db.query<{ created: number }>(
        `SELECT monthly_partitions_create($1::regclass, $2::timestamptz + make_interval(months => $3)) AS created`,
        [table, now, MONTHS_AHEAD],
      );
      const [{ dropped }] = await this.db.query<{ dropped: number }>(
        `SELECT monthly_partitions_drop_before($1::regclass, $2::timestamptz - make_interval(days => $3)) AS dropped`,
        [table, now, retentionDays],
      );
      if (created > 0 || dropped > 0) this.logger.log({ msg: 'monthly partitions changed', table, created, dropped });
      changes.push({ table, created, dropped });
    }
    return changes;
  }

  private tables(): MonthlyTable[] {
    return [
      { table: 'reading_activity', retentionDays: this.config.activityRetentionDays },
      { table: 'stream_url_issues', retentionDays: this.config.streamAuditRetentionDays },
    ];
  }
}
