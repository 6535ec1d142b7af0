import { Injectable } from '@nestjs/common';
import type { PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import { currentTransaction } from './open-transaction.js';
import { UnitOfWork } from './unit-of-work.js';

/** Units of work open in this process (every instance shares the one transaction storage). */
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
