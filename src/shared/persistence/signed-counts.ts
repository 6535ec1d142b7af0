import { type FactoryProvider, Injectable } from '@nestjs/common';
import { Db } from './db.js';
import { UnitOfWork } from './unit-of-work.js';

/**
 * A table of signed counts (ADR 0129): triggers append +n / −n rows in the writers' own
 * statements (insert only, so no writer waits on a shared counter row) and a key's figure is
 * the sum of its rows. Every such table has `id` (identity), its key columns, `count` and
 * `settled`; folding replaces each key's rows by one settled row, so that a reader sums about
 * one row per key, however many writes made it.
 */
interface SettledTable {
  table: string;
  /** Takes the batch size ($1) and answers `pending`: the pending rows it took. */
  settle: string;
}

/** Advisory lock class of the folding turns, one key per table (beside the rollup trigger's 7 340 114 and 115). */
const FOLDING_LOCK_CLASS = 7_340_116;
/** Pending deltas per transaction: a busy minute folds in a few short transactions. */
const BATCH = 20_000;

/**
 * Deletes every row of the keys of the oldest pending deltas and inserts their sum as one
 * settled row, in one statement. A delta committed meanwhile is outside the statement's
 * snapshot, is not deleted and stays pending for the next run. The bench's seed folds with it too.
 */
export function foldStatement(table: string, key: readonly string[]): string {
  const columns = key.join(', ');
  const prefixed = key.map((column) => `c.${column}`).join(', ');
  return `
    WITH pending AS (SELECT id FROM ${table} WHERE NOT settled ORDER BY id LIMIT $1),
    keys AS (SELECT DISTINCT ${prefixed} FROM ${table} c JOIN pending USING (id)),
    folded AS (
      DELETE FROM ${table} c USING keys k WHERE ${key.map((column) => `c.${column} = k.${column}`).join(' AND ')}
      RETURNING ${prefixed}, c.count),
    settled AS (
      INSERT INTO ${table} (${columns}, count, settled)
      SELECT ${columns}, sum(count), true FROM folded GROUP BY ${columns} HAVING sum(count) <> 0)
    SELECT count(*)::int AS pending FROM pending`;
}

/**
 * The signed-count tables of every module, registered at start, and their folding; and the
 * other tables that writers mark pending and this job settles by the same turns.
 */
@Injectable()
export class SignedCountFolding {
  private readonly tables: SettledTable[] = [];

  constructor(
    private readonly db: Db,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  register(table: string, key: readonly string[]): void {
    this.registerSettling(table, foldStatement(table, key));
  }

  /** A table settled by its own statement, run like a fold (same turns, batches and lock). */
  registerSettling(table: string, settle: string): void {
    this.tables.push({ table, settle });
  }

  /** The tables registered so far, in registration order (the completeness test reads it). */
  registeredTables(): string[] {
    return this.tables.map(({ table }) => table);
  }

  /**
   * Folds every table until nothing is pending; how many deltas it folded. One replica at a
   * time per table: another finds the turn taken and leaves the table to it.
   */
  async foldAll(): Promise<number> {
    let folded = 0;
    for (const [index, { settle }] of this.tables.entries()) {
      for (;;) {
        const pending = await this.unitOfWork.run(async () => {
          const [{ held }] = await this.db.query<{ held: boolean }>('SELECT pg_try_advisory_xact_lock($1, $2) AS held', [FOLDING_LOCK_CLASS, index]);
          return held ? (await this.db.query<{ pending: number }>(settle, [BATCH]))[0].pending : 0;
        });
        folded += pending;
        if (pending < BATCH) break;
      }
    }
    return folded;
  }
}

/**
 * A module's provider that registers its signed-count table at start: declared once, in the
 * module that owns the table. `table` and `key` are constants of that module, never input.
 */
export function signedCounts(table: string, key: readonly string[]): FactoryProvider {
  return {
    provide: `signed-counts:${table}`,
    inject: [SignedCountFolding],
    useFactory: (folding: SignedCountFolding) => folding.register(table, key),
  };
}
