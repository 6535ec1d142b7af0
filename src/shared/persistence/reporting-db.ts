import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import pg from 'pg';
import { AppConfig, ConfigError } from '../../config/app-config.js';
import { isDatabaseUnavailable } from './database-errors.js';
import { Db } from './db.js';
import { currentTransaction } from './open-transaction.js';
import { statementTimeouts } from './statement-timeouts.js';

/** A report read on the standby may see the primary as it was at most this long ago. */
export const STANDBY_STALENESS_BOUND_MS = 5_000;
/** How often the primary's write position and the standby's replay position are compared. */
const SAMPLE_INTERVAL_MS = 1_000;
const STANDBY_POOL_SIZE = 5;

interface PrimarySample {
  at: number;
  lsn: bigint;
}

/** Where a report's statement ran: the counts behind `db_reporting_reads_total`. */
export interface ReportingReads {
  standby: number;
  primary: number;
}

/**
 * The reads that tolerate seconds of lag, and only those (the engagement report, billing
 * history, the children's summary), sent to the streaming standby of DATABASE_READ_URL
 * (ADR 0122). A read goes to the standby only while it has replayed everything the primary
 * had written STANDBY_STALENESS_BOUND_MS ago, checked every second by comparing WAL
 * positions; otherwise, and whenever the standby fails to answer, it runs on the primary.
 * Without DATABASE_READ_URL every read runs on the primary, through Db.
 */
@Injectable()
export class ReportingDb implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ReportingDb');
  private readonly standby?: pg.Pool;
  private readonly samples: PrimarySample[] = [];
  private fresh = false;
  /**
   * Whether DATABASE_READ_URL was found to be a standby of DATABASE_URL since it last
   * (re)connected; the problem found when it was not (ADR 0122).
   */
  private verified = false;
  private problem?: string;
  private timer?: NodeJS.Timeout;
  readonly reads: ReportingReads = { standby: 0, primary: 0 };

  constructor(
    private readonly db: Db,
    @Inject(AppConfig) private readonly config: AppConfig,
  ) {
    if (config.databaseReadUrl) {
      this.standby = new pg.Pool({
        connectionString: config.databaseReadUrl,
        max: STANDBY_POOL_SIZE,
        connectionTimeoutMillis: 2_000,
        application_name: 'partner-reading-listening-api:reports',
        ...statementTimeouts,
      });
      // An idle client that loses its connection must not crash the process.
      this.standby.on('error', () => undefined);
    }
  }

  /**
   * In production a DATABASE_READ_URL that answers but is not a standby of DATABASE_URL
   * stops the process at start; elsewhere reports read the primary, with one warning. One
   * that does not answer yet is checked when it does.
   */
  async onApplicationBootstrap(): Promise<void> {
    if (!this.standby) return;
    const problem = await this.standbyProblem();
    if (problem && problem !== UNREACHABLE && this.config.isProduction) throw new ConfigError(notAStandby(problem));
    this.settle(problem);
    void this.sample();
    this.timer = setInterval(() => void this.sample(), SAMPLE_INTERVAL_MS).unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.standby?.end().catch(() => undefined);
  }

  /**
   * Runs a report's statement where it may (read-only SQL only). Inside a unit of work it
   * joins the transaction on the primary: what the transaction wrote or locked must be seen.
   */
  async query<T = Record<string, unknown>>(sql: string, parameters: unknown[] = []): Promise<T[]> {
    if (this.standby && this.fresh && !currentTransaction.getStore()) {
      try {
        const result = await this.standby.query(sql, parameters);
        this.reads.standby++;
        return result.rows as T[];
      } catch (error) {
        if (!standbyCannotAnswer(error)) throw error;
        this.fresh = false;
        this.verified = false;
        this.logger.warn({ err: (error as Error).message }, 'the standby could not answer a report; reading from the primary');
      }
    }
    this.reads.primary++;
    return this.db.query<T>(sql, parameters);
  }

  /** Records where the primary writes now, and whether the standby has replayed what it wrote the bound ago. */
  private async sample(): Promise<void> {
    const now = Date.now();
    try {
      const [{ lsn }] = await this.db.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
      this.samples.push({ at: now, lsn: lsnValue(lsn) });
    } catch {
      // The primary is down: its own reads fail as they would without a standby.
    }
    while (this.samples.length > 1 && now - this.samples[1].at >= STANDBY_STALENESS_BOUND_MS) this.samples.shift();
    const required = this.samples[0];
    if (!this.verified) await this.verifyStandby();
    if (!this.verified) {
      this.fresh = false;
      return;
    }
    try {
      const { rows } = await this.standby!.query<{ replayed: string | null }>('SELECT pg_last_wal_replay_lsn()::text AS replayed');
      const replayed = rows[0]?.replayed;
      const wasFresh = this.fresh;
      this.fresh = replayed !== null && replayed !== undefined && required !== undefined && lsnValue(replayed) >= required.lsn;
      if (wasFresh && !this.fresh)
        this.logger.warn({}, `the standby is more than ${STANDBY_STALENESS_BOUND_MS / 1000} s behind the primary; reports read from the primary`);
    } catch {
      this.fresh = false;
      // Checked again once it answers: the address may now lead to another server.
      this.verified = false;
    }
  }

  /**
   * Whether the standby is in recovery and replays DATABASE_URL's cluster (same system
   * identifier): a clone, a restored copy or an empty database answers reports with other
   * figures, or none.
   */
  private async standbyProblem(): Promise<string | typeof UNREACHABLE | undefined> {
    try {
      const [primary] = await this.db.query<{ id: string }>(CLUSTER_IDENTITY);
      const { rows } = await this.standby!.query<{ id: string; recovering: boolean }>(CLUSTER_IDENTITY);
      if (!rows[0].recovering) return 'it is not in recovery (a clone, a restored copy or another primary, not a streaming standby)';
      if (rows[0].id !== primary.id) return `it replays another cluster (system identifier ${rows[0].id}, DATABASE_URL's is ${primary.id})`;
      return undefined;
    } catch (error) {
      return isDatabaseUnavailable(error) ? UNREACHABLE : `it cannot be checked (${(error as Error).message})`;
    }
  }

  private async verifyStandby(): Promise<void> {
    this.settle(await this.standbyProblem());
  }

  /** Records the verdict, logging a new problem once; unreachable leaves the standby unverified until it answers. */
  private settle(problem: string | typeof UNREACHABLE | undefined): void {
    if (problem === UNREACHABLE) return;
    this.verified = problem === undefined;
    if (problem && problem !== this.problem) this.logger.warn({ msg: `${notAStandby(problem)}; reports read the primary` });
    this.problem = problem;
  }
}

const UNREACHABLE = Symbol('unreachable');
const notAStandby = (problem: string) => `DATABASE_READ_URL is not a standby of DATABASE_URL: ${problem}`;

/** What tells a standby of the primary from any other server: recovery, and the cluster's identity. */
const CLUSTER_IDENTITY = `SELECT system_identifier::text AS id, pg_is_in_recovery() AS recovering FROM pg_control_system()`;

/** A WAL position (`16/B374D848`) as a number. */
function lsnValue(text: string): bigint {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/** Down, unreachable, or a query cancelled by the standby's recovery (SQLSTATE 40001). */
function standbyCannotAnswer(error: unknown): boolean {
  return isDatabaseUnavailable(error) || (error as { code?: string }).code === '40001';
}
