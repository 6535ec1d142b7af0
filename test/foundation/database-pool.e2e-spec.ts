import { DataSource } from 'typeorm';
import { dataSourceOptions, migrationDataSourceOptions } from '../../src/database/data-source-options.js';
import { toApiError } from '../../src/shared/errors/all-exceptions.filter.js';
import { Db } from '../../src/shared/persistence/db.js';
import { UnitOfWork } from '../../src/shared/persistence/unit-of-work.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** DATABASE_POOL_SIZE caps the connections a process opens to PostgreSQL. */
describe('the database pool', () => {
  let service: TestApp;

  beforeAll(async () => {
    service = await startTestApp({ DATABASE_POOL_SIZE: '2' });
  });

  afterAll(() => service.close());

  it('runs at most DATABASE_POOL_SIZE statements at once, each on its own connection', async () => {
    const db = service.app.get(Db);
    const backends = await Promise.all(
      Array.from({ length: 6 }, () => db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid FROM pg_sleep(0.2)').then(([row]) => row.pid)),
    );
    expect(new Set(backends).size).toBe(2);
  });
});

describe('statement timeouts', () => {
  let service: TestApp;

  beforeAll(async () => {
    service = await startTestApp();
  });

  afterAll(() => service.close());

  it("stop a request's statement at 30 s on the server, which answers 503 and keeps the connection", async () => {
    const db = service.app.get(Db);
    const [{ statement_timeout }] = await db.query<{ statement_timeout: string }>('SHOW statement_timeout');
    expect(statement_timeout).toBe('30s');
    // The same cancellation, sooner: what a request past its time meets.
    const failure = await service.app
      .get(UnitOfWork)
      .run(async () => {
        await db.query(`SET LOCAL statement_timeout = 50`);
        await db.query('SELECT pg_sleep(1)');
      })
      .catch((error: unknown) => error);
    expect(toApiError(failure).status).toBe(503);
    const [{ ok }] = await db.query<{ ok: number }>('SELECT 1 AS ok');
    expect(ok).toBe(1);
  });

  it('leave the migrations without one: a migration or a wait for another replica takes what it takes', async () => {
    const migrator = await new DataSource(migrationDataSourceOptions(dataSourceOptions(service.databaseUrl))).initialize();
    try {
      const [{ statement_timeout }] = await migrator.query('SHOW statement_timeout');
      expect(statement_timeout).toBe('0');
    } finally {
      await migrator.destroy();
    }
  });
});
