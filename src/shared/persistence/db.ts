import { Injectable } from '@nestjs/common';
import type { Pool, QueryConfig } from 'pg';
import { DataSource, type EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver.js';
import { currentTransaction } from './open-transaction.js';

/**
 * What repositories use to reach the database, joining the transaction opened by
 * UnitOfWork.run when there is one: plain SQL through `query` (Pg…Repository), or
 * TypeORM's entity API through `manager` (TypeOrm…Repository).
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
   * paths.
   */
  async query<T = Record<string, unknown>>(sql: string, parameters: unknown[] = []): Promise<T[]> {
    return this.send<T>({ text: sql, values: parameters });
  }

  /**
   * As `query`, as a named prepared statement: PostgreSQL parses and plans it once per
   * connection instead of at every call (ADR 0123). For the hot paths' fixed statements
   * only: a name always carries the same text (pg refuses a name reused for other text),
   * and each one stays prepared on every pooled connection.
   */
  async prepared<T = Record<string, unknown>>(name: string, sql: string, parameters: unknown[]): Promise<T[]> {
    return this.send<T>({ name, text: sql, values: parameters });
  }

  private async send<T>(statement: QueryConfig): Promise<T[]> {
    // Still reported to TypeORM's logger, so query logging (and the tests' statement counts) see it.
    this.dataSource.logger.logQuery(statement.text, statement.values);
    const transaction = currentTransaction.getStore();
    const result = await (transaction ? transaction.connection.query(statement) : this.pool.query(statement));
    return result.rows as T[];
  }

  private get pool(): Pool {
    return (this.dataSource.driver as PostgresDriver).master as Pool;
  }
}
