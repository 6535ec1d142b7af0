import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import type { Pool } from 'pg';
import { Gauge } from 'prom-client';
import { DataSource } from 'typeorm';
import { HttpMetrics } from './metrics.js';

/**
 * Gauges read when Prometheus scrapes, so that every replica reports the same shared
 * figures (the webhook backlog lives in the database) and its own pool's use.
 */
@Injectable()
export class BusinessMetrics implements OnModuleInit {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(HttpMetrics) private readonly metrics: HttpMetrics,
  ) {}

  onModuleInit(): void {
    const registers = [this.metrics.registry];
    const dataSource = this.dataSource;
    new Gauge({
      name: 'webhook_deliveries',
      help: 'Webhook deliveries not yet delivered, by state: pending (the backlog, retries included) or failed (attempts exhausted).',
      labelNames: ['state'] as const,
      registers,
      async collect() {
        // Delivered rows grow without bound and are not counted; pending rows are indexed.
        const rows = await dataSource.query<{ status: string; count: string }[]>(
          `SELECT status, count(*) AS count FROM webhook_deliveries WHERE status IN ('pending', 'failed') GROUP BY status`,
        );
        this.reset();
        for (const state of ['pending', 'failed']) this.set({ state }, Number(rows.find((r) => r.status === state)?.count ?? 0));
      },
    });
    new Gauge({
      name: 'webhook_backlog_oldest_due_seconds',
      help: 'How long the oldest due webhook delivery has waited past its attempt time (0 when none is due).',
      registers,
      async collect() {
        const [row] = await dataSource.query<{ lag: string | null }[]>(
          `SELECT EXTRACT(EPOCH FROM now() - min(next_attempt_at)) AS lag FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= now()`,
        );
        this.set(Math.max(0, Number(row?.lag ?? 0)));
      },
    });
    new Gauge({
      name: 'db_pool_connections',
      help: "This process's PostgreSQL pool: connections by state (idle, busy) and requests waiting for one (waiting).",
      labelNames: ['state'] as const,
      registers,
      collect() {
        const pool = (dataSource.driver as unknown as { master?: Pool }).master;
        if (!pool) return;
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'busy' }, pool.totalCount - pool.idleCount);
        this.set({ state: 'waiting' }, pool.waitingCount);
      },
    });
  }
}
