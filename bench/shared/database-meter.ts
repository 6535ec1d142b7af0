import pg from 'pg';
import { postgresCpuMs } from './servers.js';

/** What PostgreSQL had done at one moment: CPU time and statements run in the bench's database. */
export interface DatabaseReading {
  /** When the reading was taken (performance.now(), ms). */
  at: number;
  cpuMs: number | null;
  statements: number | null;
  /** Of those, BEGIN, COMMIT, ROLLBACK and savepoints: round trips that carry no query. */
  transactionControl: number | null;
}

/** What PostgreSQL did between two readings (or per second, for the idle rate). */
export type DatabaseUse = Omit<DatabaseReading, 'at'>;

const NOTHING: DatabaseUse = { cpuMs: 0, statements: 0, transactionControl: 0 };

// The reading's own statement names pg_stat_statements and so leaves itself out.
const STATEMENT_COUNTS = `SELECT coalesce(sum(calls), 0)::bigint AS statements,
       coalesce(sum(calls) FILTER (WHERE query ~* '^\\s*(begin|commit|rollback|start transaction|savepoint|release)'), 0)::bigint AS control
  FROM pg_stat_statements
 WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
   AND query NOT ILIKE '%pg_stat_statements%'`;

/**
 * Reads PostgreSQL's CPU (from /proc, when the bench started the server) and the number of
 * statements it ran (pg_stat_statements, when available) before and after a measured run, so
 * both can be given per request. Only one server is under load at a time, so what the database
 * did in the window is that server's work plus what it does with no request at all (the
 * servers' background jobs: webhook polling, the event feed, the scheduled jobs; autovacuum).
 * That idle rate is measured (calibrateIdle) at start and again before each report, and
 * taken out of every window, so the figures per request are the requests' own.
 */
export class DatabaseMeter {
  private idlePerSecond: DatabaseUse = NOTHING;

  private constructor(
    private readonly client: pg.Client | null,
    private readonly postmasterPid: number | undefined,
  ) {}

  static async open(url: string, statementStats: boolean, postmasterPid: number | undefined): Promise<DatabaseMeter> {
    if (!statementStats) return new DatabaseMeter(null, postmasterPid);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    return new DatabaseMeter(client, postmasterPid);
  }

  async read(): Promise<DatabaseReading> {
    const at = performance.now();
    const cpuMs = this.postmasterPid ? postgresCpuMs(this.postmasterPid) : null;
    if (!this.client) return { at, cpuMs, statements: null, transactionControl: null };
    const { rows } = await this.client.query<{ statements: string; control: string }>(STATEMENT_COUNTS);
    return { at, cpuMs, statements: Number(rows[0].statements), transactionControl: Number(rows[0].control) };
  }

  /** Measures what the database does per second while no load runs; returns it. */
  async calibrateIdle(seconds: number): Promise<DatabaseUse> {
    const start = await this.read();
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const end = await this.read();
    const elapsedSeconds = (end.at - start.at) / 1000;
    const perSecond = (figure: number | null) => (figure === null ? 0 : figure / elapsedSeconds);
    const idle = difference(start, end);
    this.idlePerSecond = { cpuMs: perSecond(idle.cpuMs), statements: perSecond(idle.statements), transactionControl: perSecond(idle.transactionControl) };
    return this.idlePerSecond;
  }

  /** What the database did between two readings, less its idle rate over that time (never below zero). */
  between(start: DatabaseReading, end: DatabaseReading): DatabaseUse {
    const seconds = (end.at - start.at) / 1000;
    const used = difference(start, end);
    const less = (figure: keyof DatabaseUse) => (used[figure] === null ? null : Math.max(0, used[figure]! - this.idlePerSecond[figure]! * seconds));
    return { cpuMs: less('cpuMs'), statements: less('statements'), transactionControl: less('transactionControl') };
  }

  async close(): Promise<void> {
    await this.client?.end();
  }
}

/**
 * The difference of two readings; null where a figure is missing or went backwards (a backend
 * that exited but was not yet reaped is counted at the start and nowhere at the end; the SQL
 * check resets pg_stat_statements, though never during a measured run).
 */
function difference(start: DatabaseReading, end: DatabaseReading): DatabaseUse {
  const diff = (a: number | null, b: number | null) => (a !== null && b !== null && b >= a ? b - a : null);
  return {
    cpuMs: diff(start.cpuMs, end.cpuMs),
    statements: diff(start.statements, end.statements),
    transactionControl: diff(start.transactionControl, end.transactionControl),
  };
}
