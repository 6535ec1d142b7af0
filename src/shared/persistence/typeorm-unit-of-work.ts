import { Injectable } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Pool, PoolClient } from 'pg';
import { DataSource, type EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver.js';
import { UnitOfWork } from './unit-of-work.js';

/** The open unit of work: TypeORM's transactional manager, and the pg connection under it. */
interface OpenTransaction {
  manager: EntityManager;
  connection: PoolClient;
}

const currentTransaction = new AsyncLocalStorage<OpenTransaction>();

/** Units of work open in this process (every instance shares the one storage above). */
let openUnitsOfWork = 0;

@Injectable()
export class TypeOrmUnitOfWork extends UnitOfWork {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  run<T>(work: () => Promise<T>): Promise<T> {
    // A nested run joins the transaction already open.
    if (currentTransaction.getStore()) return work();
    openUnitsOfWork += 1;
    return this.inTransaction(work).finally(() => {
      openUnitsOfWork -= 1;
      // On Node 20 an enabled AsyncLocalStorage runs a hook on every promise of the process,
      // which cost read requests about a fifth of their CPU (bench profile), and it stays enabled
      // once run() has been called. Nothing needs it while no unit of work is open, so it
      // is switched off then; the next run() switches it on again. (Only a unit of work in
      // flight has a context to lose, and there is none.)
      if (openUnitsOfWork === 0) currentTransaction.disable();
    });
  }

  /** What DataSource.transaction does, keeping the connection so Db.query can use it directly. */
  private async inTransaction<T>(work: () => Promise<T>): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    try {
      const connection = (await runner.connect()) as PoolClient;
      await runner.startTransaction();
      const result = await currentTransaction.run({ manager: runner.manager, connection }, work);
      await runner.commitTransaction();
      return result;
    } catch (error) {
      // The original error is what the caller needs, even when the rollback fails too.
      await runner.rollbackTransaction().catch(() => undefined);
      throw error;
    } finally {
      await runner.release();
    }
  }
}

/**
 * What TypeORM repositories use to reach the database: the manager of the transaction
 * opened by UnitOfWork.run when there is one, otherwise the pool.
 */
@Injectable()
export class Db {
  constructor(private readonly dataSource: DataSource) {}

  get manager(): EntityManager {
    return currentTransaction.getStore()?.manager ?? this.dataSource.manager;
  }

  /**
   * Runs parameterized SQL in the current transaction, if any, and returns the rows.
   * (TypeORM's own `manager.query` answers UPDATE and DELETE with `[rows, count]`
   * instead of the rows; this always answers the rows, RETURNING included.)
   * The statement goes to pg directly: to the transaction's connection inside a unit of
   * work, to the driver's pool outside one. TypeORM's query runner (a runner per statement,
   * awaited before- and after-query events) cost more than the statements on the hot
   * paths (bench profile).
   */
  async query<T = Record<string, unknown>>(sql: string, parameters: unknown[] = []): Promise<T[]> {
    // Still reported to TypeORM's logger, so query logging (and the tests' statement counts) see it.
    this.dataSource.logger.logQuery(sql, parameters);
    const transaction = currentTransaction.getStore();
    const result = await (transaction ? transaction.connection.query(sql, parameters) : this.pool.query(sql, parameters));
    return result.rows as T[];
  }

  private get pool(): Pool {
    return (this.dataSource.driver as PostgresDriver).master as Pool;
  }
}
