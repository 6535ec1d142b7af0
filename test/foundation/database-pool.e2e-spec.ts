import { Db } from '../../src/shared/persistence/db.js';
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
