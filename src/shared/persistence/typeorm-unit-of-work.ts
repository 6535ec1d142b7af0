import { Injectable } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import { DataSource, type EntityManager } from 'typeorm';
import { UnitOfWork } from './unit-of-work.js';

const currentTransaction = new AsyncLocalStorage<EntityManager>();

@Injectable()
export class TypeOrmUnitOfWork extends UnitOfWork {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  run<T>(work: () => Promise<T>): Promise<T> {
    // A nested run joins the transaction already open.
    if (currentTransaction.getStore()) return work();
    return this.dataSource.transaction((manager) => currentTransaction.run(manager, work));
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
    return currentTransaction.getStore() ?? this.dataSource.manager;
  }

  /**
   * Runs parameterized SQL in the current transaction, if any, and returns the rows.
   * (TypeORM's own `manager.query` answers UPDATE and DELETE with `[rows, count]`
   * instead of the rows; this always answers the rows, RETURNING included.)
   */
  async query<T = Record<string, unknown>>(sql: string, parameters: unknown[] = []): Promise<T[]> {
    const transaction = currentTransaction.getStore()?.queryRunner;
    const runner = transaction ?? this.dataSource.createQueryRunner();
    try {
      return (await runner.query(sql, parameters, true)).records as T[];
    } finally {
      if (!transaction) await runner.release();
    }
  }
}
