import pg from 'pg';
import { postgresCpuMs } from './servers.js';

/** What PostgreSQL had done at one moment: CPU time and statements run in the bench's database. */
export interface DatabaseReading {
  cpuMs: number | null;
  statements: number | null;
  /** Of those, BEGIN, COMMIT, ROLLBACK and savepoints: round trips that carry no query. */
  transactionControl: number | null;
}

/** What PostgreSQL did between two readings. */
export type DatabaseUse = DatabaseReading;

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
 * did in the window is that server's work, plus PostgreSQL's own background work (checkpoints,
 * autovacuum) and the statements of the servers' background jobs, both small next to the load.
 */
export class DatabaseMeter {
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
    const cpuMs = this.postmasterPid ? postgresCpuMs(this.postmasterPid) : null;
    if (!this.client) return { cpuMs, statements: null, transactionControl: null };
    const { rows } = await this.client.query<{ statements: string; control: string }>(STATEMENT_COUNTS);
    return { cpuMs, statements: Number(rows[0].statements), transactionControl: Number(rows[0].control) };
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
export function useBetween(start: DatabaseReading, end: DatabaseReading): DatabaseUse {
  const diff = (a: number | null, b: number | null) => (a !== null && b !== null && b >= a ? b - a : null);
  return { cpuMs: diff(start.cpuMs, end.cpuMs), statements: diff(start.statements, end.statements), transactionControl: diff(start.transactionControl, end.transactionControl) };
}
