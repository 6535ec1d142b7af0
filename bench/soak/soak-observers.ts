import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pg from 'pg';
import { postgresCpuMs, ProcessSampler } from '../shared/servers.js';
import type { TableAllowance, TableReading } from './soak-verdict.js';

/**
 * The tables the soak watches and the rows each request may add to them (upper bounds from
 * the code; docs/performance.md, "Soak"). A table with no allowance must not grow at all.
 */
export const TABLE_ALLOWANCES: readonly TableAllowance[] = [
  // Updated in place by every PUT (the rotation's readers all have a position): no new row.
  { table: 'playback_positions', rowsPerRequest: {} },
  // A chapter's first save of a UTC day writes one activity row (ADR 0123); later saves none.
  { table: 'reading_activity', rowsPerRequest: { 'position-put': 1, 'position-put-keyed': 1, finish: 1 } },
  { table: 'reading_chapter_days', rowsPerRequest: { 'position-put': 1, 'position-put-keyed': 1, finish: 1 } },
  { table: 'reading_reader_days', rowsPerRequest: { 'position-put': 1, 'position-put-keyed': 1, finish: 1 } },
  // Signed counts (ADR 0129): a delta per activity row (and its month's), folded every minute into one row per key.
  { table: 'engagement_day_counts', rowsPerRequest: { 'position-put': 1, 'position-put-keyed': 1, finish: 1 } },
  { table: 'engagement_month_counts', rowsPerRequest: { 'position-put': 1, 'position-put-keyed': 1, finish: 1 } },
  { table: 'entitlement_counts', rowsPerRequest: {} },
  { table: 'novel_progress', rowsPerRequest: {} },
  { table: 'entitlements', rowsPerRequest: {} },
  { table: 'stream_url_issues', rowsPerRequest: { stream: 1 } },
  // One event per ending chosen, one delivery to the one endpoint, one attempt each.
  { table: 'webhook_events', rowsPerRequest: { finish: 1 } },
  { table: 'webhook_deliveries', rowsPerRequest: { finish: 1 } },
  { table: 'webhook_delivery_attempts', rowsPerRequest: { finish: 1 } },
  { table: 'chapter_unlock_schedule', rowsPerRequest: {} },
  // A key per keyed PUT, kept 24 h (ADR 0144): longer than any soak, so every one stays.
  { table: 'idempotency_keys', rowsPerRequest: { 'position-put-keyed': 1 } },
];

/** Size (pg_total_relation_size) and pg_stat_user_tables counters, a partitioned table's partitions summed. */
const TABLES = `
  SELECT t.name AS table,
         coalesce(sum(pg_total_relation_size(p.relid)), 0)::bigint AS bytes,
         coalesce(sum(s.n_live_tup), 0)::bigint AS live, coalesce(sum(s.n_dead_tup), 0)::bigint AS dead,
         coalesce(sum(s.n_tup_ins), 0)::bigint AS ins, coalesce(sum(s.n_tup_upd), 0)::bigint AS upd,
         coalesce(sum(s.n_tup_del), 0)::bigint AS del,
         coalesce(sum(s.autovacuum_count), 0)::int AS autovacuums
    FROM unnest($1::text[]) AS t(name)
    -- A partitioned table's tree (its root has no storage), or the table alone.
    JOIN LATERAL (SELECT relid FROM pg_partition_tree(to_regclass(t.name)) UNION SELECT to_regclass(t.name)) p ON p.relid IS NOT NULL
    LEFT JOIN pg_stat_user_tables s ON s.relid = p.relid
   GROUP BY t.name`;

/** What PostgreSQL did in the background: checkpoints (PostgreSQL 17+ view) and WAL, cumulative. */
const BACKGROUND = `
  SELECT c.num_timed + c.num_requested AS checkpoints, c.write_time + c.sync_time AS checkpoint_ms, c.buffers_written,
         w.wal_bytes::bigint AS wal_bytes, w.wal_fpi AS wal_fpi
    FROM pg_stat_checkpointer c, pg_stat_wal w`;

/** Statements running for more than SLOW_MS, sampled every second: what a stall was waiting on. */
const SLOW_MS = 250;
const ACTIVITY = `
  SELECT backend_type, wait_event_type, wait_event, left(regexp_replace(query, '\\s+', ' ', 'g'), 100) AS query,
         (extract(epoch FROM clock_timestamp() - query_start) * 1000)::int AS ms
    FROM pg_stat_activity
   WHERE state = 'active' AND pid <> pg_backend_pid() AND query_start < clock_timestamp() - make_interval(secs => ${SLOW_MS / 1000})`;

/** The statements that took the most time in a minute (pg_stat_statements), and the scheduled jobs' own statements by job. */
const STATEMENTS = `
  SELECT queryid::text AS id, left(regexp_replace(query, '\\s+', ' ', 'g'), 80) AS query, calls, total_exec_time AS ms,
         CASE WHEN query LIKE '%WHERE NOT settled%' THEN 'signed-count folding'
              WHEN query LIKE '%WITH RECURSIVE scheduled_partners%' THEN 'chapter unlocks'
              WHEN query LIKE '%DELETE FROM rate_limit_buckets%' THEN 'rate-limit bucket purge'
              WHEN query LIKE '%monthly_partitions_%' THEN 'partition maintenance' END AS job
    FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())`;

export interface TableMinute extends TableReading {
  autovacuums: number;
}

export interface BackgroundMinute {
  loadAverage: number;
  checkpoints: number;
  checkpointMs: number;
  buffersWritten: number;
  walMb: number;
  walFullPageImages: number;
  autovacuumed: string[];
  /** Statements seen running for more than SLOW_MS: the longest of each kind. */
  slowStatements: { what: string; ms: number }[];
  /** The statements that took most of the database's time this minute. */
  topStatements: { query: string; calls: number; ms: number }[];
  /** The scheduled jobs' statements this minute: calls and ms by job (the service runs the jobs itself). */
  jobs: Record<string, { calls: number; ms: number }>;
}

interface BackgroundReading {
  checkpoints: number;
  checkpointMs: number;
  buffersWritten: number;
  walBytes: number;
  walFpi: number;
  statements: Map<string, { query: string; calls: number; ms: number; job: string | null }>;
}

/**
 * The database side of each minute: the watched tables, the checkpointer and WAL, the
 * statements that ran long (sampled every second) and those that took the most time.
 */
export class DatabaseObserver {
  private lastTables: TableMinute[] = [];
  private lastBackground?: BackgroundReading;
  private slow = new Map<string, number>();
  private sampler?: NodeJS.Timeout;

  private constructor(
    private readonly client: pg.Client,
    private readonly statementStats: boolean,
  ) {}

  static async open(url: string, statementStats: boolean): Promise<DatabaseObserver> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const observer = new DatabaseObserver(client, statementStats);
    observer.lastTables = await observer.tables();
    observer.lastBackground = await observer.background();
    return observer;
  }

  /** The tables as they are now (before the traffic: the start of every table check). */
  tablesNow(): TableMinute[] {
    return this.lastTables;
  }

  startSampling(): void {
    this.sampler = setInterval(() => void this.sampleActivity(), 1000);
  }

  /** Reads the tables and the background counters; returns the minute since the last call. */
  async minute(): Promise<{ tables: TableMinute[]; background: BackgroundMinute }> {
    const tables = await this.tables();
    const reading = await this.background();
    const before = this.lastBackground!;
    const autovacuumed = tables.filter((t) => t.autovacuums > (this.lastTables.find((l) => l.table === t.table)?.autovacuums ?? 0)).map((t) => t.table);
    const topStatements = [...reading.statements]
      .map(([id, s]) => ({
        query: s.query,
        calls: s.calls - (before.statements.get(id)?.calls ?? 0),
        ms: Math.round(s.ms - (before.statements.get(id)?.ms ?? 0)),
      }))
      .filter((s) => s.calls > 0)
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 3);
    const jobs: BackgroundMinute['jobs'] = {};
    for (const [id, statement] of reading.statements) {
      if (!statement.job) continue;
      const calls = statement.calls - (before.statements.get(id)?.calls ?? 0);
      if (calls === 0) continue;
      const job = (jobs[statement.job] ??= { calls: 0, ms: 0 });
      job.calls += calls;
      job.ms = Math.round(job.ms + statement.ms - (before.statements.get(id)?.ms ?? 0));
    }
    const background: BackgroundMinute = {
      loadAverage: Math.round(loadavg()[0] * 100) / 100,
      checkpoints: reading.checkpoints - before.checkpoints,
      checkpointMs: Math.round(reading.checkpointMs - before.checkpointMs),
      buffersWritten: reading.buffersWritten - before.buffersWritten,
      walMb: Math.round((reading.walBytes - before.walBytes) / 2 ** 20),
      walFullPageImages: reading.walFpi - before.walFpi,
      autovacuumed,
      slowStatements: [...this.slow].map(([what, ms]) => ({ what, ms })).sort((a, b) => b.ms - a.ms),
      topStatements,
      jobs,
    };
    this.slow = new Map();
    this.lastTables = tables;
    this.lastBackground = reading;
    return { tables, background };
  }

  async close(): Promise<void> {
    clearInterval(this.sampler);
    await this.client.end();
  }

  private async tables(): Promise<TableMinute[]> {
    const { rows } = await this.client.query<Record<string, string>>(TABLES, [TABLE_ALLOWANCES.map((a) => a.table)]);
    return rows.map((r) => ({
      table: r.table,
      bytes: Number(r.bytes),
      liveRows: Number(r.live),
      deadRows: Number(r.dead),
      inserted: Number(r.ins),
      updated: Number(r.upd),
      deleted: Number(r.del),
      autovacuums: Number(r.autovacuums),
    }));
  }

  private async background(): Promise<BackgroundReading> {
    const {
      rows: [b],
    } = await this.client.query<Record<string, string>>(BACKGROUND);
    const statements: BackgroundReading['statements'] = new Map();
    if (this.statementStats) {
      for (const s of (await this.client.query<{ id: string; query: string; calls: string; ms: number; job: string | null }>(STATEMENTS)).rows) {
        statements.set(s.id, { query: s.query, calls: Number(s.calls), ms: s.ms, job: s.job });
      }
    }
    return {
      checkpoints: Number(b.checkpoints),
      checkpointMs: Number(b.checkpoint_ms),
      buffersWritten: Number(b.buffers_written),
      walBytes: Number(b.wal_bytes),
      walFpi: Number(b.wal_fpi),
      statements,
    };
  }

  private async sampleActivity(): Promise<void> {
    try {
      const { rows } = await this.client.query<{ backend_type: string; wait_event_type: string | null; wait_event: string | null; query: string; ms: number }>(
        ACTIVITY,
      );
      for (const r of rows) {
        const what = `${r.backend_type}${r.wait_event ? ` waiting ${r.wait_event_type}/${r.wait_event}` : ''}: ${r.query}`;
        this.slow.set(what, Math.max(this.slow.get(what) ?? 0, r.ms));
      }
    } catch {
      // A sample lost while the minute's reading holds the connection: the next one comes in a second.
    }
  }
}

/** Mean and highest RSS and the CPU (% of one core) of each watched process over each minute (ProcessSampler, one per minute). */
export class ProcessObserver {
  private samplers: { name: string; sampler: ProcessSampler }[] = [];
  private since = 0;

  constructor(private readonly processes: readonly { name: string; pid: number }[]) {
    this.restart();
  }

  minute(): { name: string; rssMb: number; maxMb: number; cpuPercent: number }[] {
    const seconds = (performance.now() - this.since) / 1000;
    const figures = this.samplers.map(({ name, sampler }) => {
      const use = sampler.stop();
      return { name, rssMb: use?.meanMb ?? 0, maxMb: use?.maxMb ?? 0, cpuPercent: use ? Math.round(use.cpuMs / seconds / 10) : 0 };
    });
    this.restart();
    return figures;
  }

  stop(): void {
    for (const { sampler } of this.samplers) sampler.stop();
  }

  private restart(): void {
    this.since = performance.now();
    this.samplers = this.processes.map(({ name, pid }) => {
      const sampler = new ProcessSampler(pid);
      sampler.start(1000);
      return { name, sampler };
    });
  }
}

/**
 * Who had the machine each minute, to tell a stall of the service from one of the machine:
 * CPU of PostgreSQL and of every process that is not the soak's (other people's work on a
 * shared machine), in % of one core, and the longest event-loop delay of the service (its
 * Prometheus metrics, which prom-client resets at each scrape) and of the load generator.
 */
export interface MachineMinute {
  postgresPercent: number | null;
  /** Busy CPU of the whole machine less the service, the load generator and PostgreSQL. */
  othersPercent: number | null;
  serviceLoopDelayMs: { p99: number; max: number } | null;
  loadLoopDelayMs: { p99: number; max: number };
}

export class MachineObserver {
  private readonly loop = monitorEventLoopDelay({ resolution: 10 });
  private last: { at: number; busyMs: number | null; postgresMs: number | null };

  constructor(
    private readonly postmasterPid: number | undefined,
    private readonly metricsUrl: string,
  ) {
    this.loop.enable();
    this.last = this.read();
  }

  /** The minute since the last call; `ownPercent` is the CPU of the service and the load generator. */
  async minute(ownPercent: number): Promise<MachineMinute> {
    const now = this.read();
    const seconds = (now.at - this.last.at) / 1000;
    const percent = (a: number | null, b: number | null) => (a === null || b === null ? null : Math.round((b - a) / seconds / 10));
    const postgresPercent = percent(this.last.postgresMs, now.postgresMs);
    const busyPercent = percent(this.last.busyMs, now.busyMs);
    this.last = now;
    const loadLoopDelayMs = { p99: Math.round(this.loop.percentile(99) / 1e6), max: Math.round(this.loop.max / 1e6) };
    this.loop.reset();
    return {
      postgresPercent,
      othersPercent: busyPercent === null || postgresPercent === null ? null : Math.max(0, busyPercent - ownPercent - postgresPercent),
      serviceLoopDelayMs: await this.serviceLoopDelay(),
      loadLoopDelayMs,
    };
  }

  stop(): void {
    this.loop.disable();
  }

  private read(): { at: number; busyMs: number | null; postgresMs: number | null } {
    return { at: performance.now(), busyMs: machineBusyMs(), postgresMs: this.postmasterPid ? postgresCpuMs(this.postmasterPid) : null };
  }

  private async serviceLoopDelay(): Promise<MachineMinute['serviceLoopDelayMs']> {
    try {
      const text = await (await fetch(this.metricsUrl)).text();
      const seconds = (name: string) => Number(new RegExp(`^${name} ([0-9.e+-]+)$`, 'm').exec(text)?.[1]);
      const p99 = seconds('nodejs_eventloop_lag_p99_seconds');
      const max = seconds('nodejs_eventloop_lag_max_seconds');
      return Number.isFinite(p99) && Number.isFinite(max) ? { p99: Math.round(p99 * 1000), max: Math.round(max * 1000) } : null;
    } catch {
      return null;
    }
  }
}

/** CPU time all cores spent busy since boot (/proc/stat: all but idle and iowait), in ms. */
function machineBusyMs(): number | null {
  try {
    const fields = /^cpu\s+(.*)$/m.exec(readFileSync('/proc/stat', 'utf8'))![1].split(/\s+/).map(Number);
    const total = fields.slice(0, 8).reduce((a, b) => a + b, 0);
    // Linux's USER_HZ is 100: ticks of 10 ms.
    return (total - fields[3] - fields[4]) * 10;
  } catch {
    return null;
  }
}
