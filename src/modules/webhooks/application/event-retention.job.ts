import { Injectable, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { Cron, CronExpression } from '@nestjs/schedule';
import { retentionCutoff } from '../domain/event-feed.js';
import { WebhookEventRepository } from '../domain/webhook-event.repository.js';

/** Events removed per statement: short transactions, so appends never wait long on the counters. */
const BATCH_SIZE = 1_000;

/**
 * Removes events past the feed's retention, with their deliveries, every hour. Replicas
 * may run it at the same moment: each batch skips rows another replica holds, and a
 * removal is final, so running twice does nothing more.
 */
@Injectable()
export class EventRetentionJob {
  private readonly logger = new Logger('EventRetention');

  constructor(
    private readonly events: WebhookEventRepository,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  @Cron(CronExpression.EVERY_HOUR, { name: 'event-retention' })
  async onSchedule(): Promise<void> {
    // The CLI builds the same modules without an HTTP server; scheduled work is the service's.
    if (!this.adapterHost.httpAdapter) return;
    try {
      await this.pruneExpired();
    } catch (error) {
      this.logger.error({ msg: 'event retention run failed', err: String(error) });
    }
  }

  /** Removes every event past retention; returns how many. */
  async pruneExpired(now = new Date()): Promise<number> {
    const cutoff = retentionCutoff(now);
    let removed = 0;
    for (;;) {
      const batch = await this.events.pruneCreatedBefore(cutoff, BATCH_SIZE);
      removed += batch;
      if (batch < BATCH_SIZE) return removed;
    }
  }
}
