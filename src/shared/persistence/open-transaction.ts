import { AsyncLocalStorage } from 'node:async_hooks';
import type { PoolClient } from 'pg';
import type { EntityManager } from 'typeorm';

/** The open unit of work: TypeORM's transactional manager, and the pg connection under it. */
export interface OpenTransaction {
  manager: EntityManager;
  connection: PoolClient;
}

/**
 * The unit of work open in the current call chain, if any: TypeOrmUnitOfWork opens it,
 * Db joins it. Module state on purpose: every instance of either must see the same one.
 */
export const currentTransaction = new AsyncLocalStorage<OpenTransaction>();
