import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { Pool } from 'pg';
import { Counter, Gauge } from 'prom-client';
import { DataSource } from 'typeorm';
import { KeyedTransactionSlots } from '../modules/idempotency/index.js';
import { WebhookBacklog } from '../modules/webhooks/index.js';
import { ReportingDb } from '../shared/persistence/reporting-db.js';
import { HttpMetrics } from './metrics.js';

/**
 * Gauges of the shared backlog (the same on every replica) and of this process's pool.
 * A scrape costs no statement that grows with the data: the backlog figures are read at
 * most every 15 s (WebhookBacklog), the pool's from memory.
 */
@Injectable()
export class BusinessMetrics implements OnModuleInit {
  constructor(
    private readonly dataSource: DataSource,
    private readonly backlog: WebhookBacklog,
    private readonly reporting: ReportingDb,
    private readonly keyedWrites: KeyedTransactionSlots,
    @Inject(HttpMetrics) private readonly metrics: HttpMetrics,
  ) {}

  onModuleInit(): void {
    const registers = [this.metrics.registry];
    const { backlog, dataSource, reporting, keyedWrites } = this;
    new Gauge({
      name: 'webhook_deliveries',
      help: 'Webhook deliveries not yet delivered, by state: pending (the backlog, retries included) or failed (attempts exhausted). Read at most every 15 s.',
      labelNames: ['state'] as const,
      registers,
      async collect() {
        const figures = await backlog.figures();
        this.set({ state: 'pending' }, figures.pending);
        this.set({ state: 'failed' }, figures.failed);
      },
    });
    new Gauge({
      name: 'webhook_backlog_oldest_due_seconds',
      help: 'How long the oldest due webhook delivery has waited past its attempt time (0 when none is due). Read at most every 15 s.',
      registers,
      async collect() {
        this.set((await backlog.figures()).oldestDueSeconds);
      },
    });
    new Counter({
      name: 'db_reporting_reads_total',
      help: "Statements of the reports (engagement, billing history, children's summary), by where they ran: standby (DATABASE_READ_URL) or primary.",
      labelNames: ['target'] as const,
      registers,
      collect() {
        this.reset();
        this.inc({ target: 'standby' }, reporting.reads.standby);
        this.inc({ target: 'primary' }, reporting.reads.primary);
      },
    });
    new Gauge({
      name: 'db_pool_connections',
      help: "This process's PostgreSQL pool: connections by state (idle, busy) and requests waiting because none is idle (waiting).",
      labelNames: ['state'] as const,
      registers,
      collect() {
        const pool = (dataSource.driver as unknown as { master?: Pool }).master;
        if (!pool) return;
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'busy' }, pool.totalCount - pool.idleCount);
        // pg queues every checkout for a tick even while a connection is idle; only a
        // checkout queued with none idle is waiting.
        this.set({ state: 'waiting' }, pool.idleCount > 0 ? 0 : pool.waitingCount);
      },
    });
    new Gauge({
      name: 'keyed_write_transactions',
      help: "This process's keyed writes (Idempotency-Key) by state: open (holding a transaction) or waiting for one of the slots (ADR 0158).",
      labelNames: ['state'] as const,
      registers,
      collect() {
        this.set({ state: 'open' }, keyedWrites.held());
        this.set({ state: 'waiting' }, keyedWrites.waitingCount());
      },
    });
  }
}
