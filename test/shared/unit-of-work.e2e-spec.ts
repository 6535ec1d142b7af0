import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source-options.js';
import { Db } from '../../src/shared/persistence/db.js';
import { TypeOrmUnitOfWork } from '../../src/shared/persistence/typeorm-unit-of-work.js';
import { createTestDatabase } from '../support/test-database.js';

/**
 * Units of work on a real PostgreSQL: repositories join the open transaction without being
 * handed it, overlapping units of work keep their own transactions, and the async context
 * that carries them is switched off between units of work (it costs CPU on every promise) without losing one.
 */
describe('TypeOrmUnitOfWork', () => {
  let dataSource: DataSource;
  let db: Db;
  let unitOfWork: TypeOrmUnitOfWork;

  beforeAll(async () => {
    dataSource = await new DataSource(dataSourceOptions(await createTestDatabase(), 4)).initialize();
    db = new Db(dataSource);
    unitOfWork = new TypeOrmUnitOfWork(dataSource);
  });

  afterAll(() => dataSource.destroy());

  const transactionId = async () => (await db.query<{ id: string | null }>('SELECT txid_current_if_assigned()::text AS id'))[0].id;
  const inTransaction = () => db.manager !== dataSource.manager;
  // Forces a transaction id, so two units of work can be told apart.
  const assignId = async () => (await db.query<{ id: string }>('SELECT txid_current()::text AS id'))[0].id;

  it('gives the statements of a unit of work one transaction, and nested units of work join it', async () => {
    const seen = await unitOfWork.run(async () => {
      const id = await assignId();
      const nested = await unitOfWork.run(async () => transactionId());
      const afterATimer = await new Promise((resolve) => setTimeout(() => resolve(transactionId()), 5));
      return { id, nested, afterATimer, inTransaction: inTransaction() };
    });
    expect(seen.inTransaction).toBe(true);
    expect(seen.nested).toBe(seen.id);
    expect(seen.afterATimer).toBe(seen.id);
    expect(inTransaction()).toBe(false);
    expect(await transactionId()).toBeNull();
  });

  it('keeps overlapping units of work apart, also when one ends while the other is still open', async () => {
    let releaseFirst!: () => void;
    const firstMayEnd = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstId = '';
    const first = unitOfWork.run(async () => {
      firstId = await assignId();
      await firstMayEnd;
      return transactionId();
    });
    const second = unitOfWork.run(async () => {
      const id = await assignId();
      releaseFirst();
      const firstEnded = await first;
      // The first has committed and the context storage may have been switched: this one keeps its transaction.
      await new Promise((resolve) => setTimeout(resolve, 20));
      return { id, firstEnded, later: await transactionId(), inTransaction: inTransaction() };
    });
    const result = await second;
    expect(result.firstEnded).toBe(firstId);
    expect(result.id).not.toBe(firstId);
    expect(result.later).toBe(result.id);
    expect(result.inTransaction).toBe(true);
    expect(inTransaction()).toBe(false);
  });

  it('starts a fresh transaction after every unit of work has ended', async () => {
    const a = await unitOfWork.run(assignId);
    expect(inTransaction()).toBe(false);
    const b = await unitOfWork.run(assignId);
    expect(b).not.toBe(a);
    expect(await transactionId()).toBeNull();
  });

  it('rolls back a unit of work that fails, and the next one works', async () => {
    await db.query('CREATE TABLE IF NOT EXISTS uow_probe (n integer)');
    await expect(
      unitOfWork.run(async () => {
        await db.query('INSERT INTO uow_probe VALUES (1)');
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    await unitOfWork.run(() => db.query('INSERT INTO uow_probe VALUES (2)'));
    expect(await db.query('SELECT n FROM uow_probe ORDER BY n')).toEqual([{ n: 2 }]);
  });
});
