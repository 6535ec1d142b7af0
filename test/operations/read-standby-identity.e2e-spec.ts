import pg from 'pg';
import { createDatabaseIfMissing } from '../../src/database/database-location.js';
import { buildOnce, runNode, startService } from '../support/processes.js';
import { bearer, serviceEnvFor, startTestApp, type TestApp } from '../support/test-app.js';
import { createTestDatabase, withDatabase } from '../support/test-database.js';

/**
 * Issue 38, item 3 (ADR 0122): DATABASE_READ_URL must be a streaming standby of
 * DATABASE_URL (in recovery, same system identifier). A clone or an empty database is
 * refused at start in production, in one line naming the variable; elsewhere it is warned
 * about once and the reports read the primary.
 */
const NOT_A_STANDBY = /DATABASE_READ_URL is not a standby of DATABASE_URL: it is not in recovery/g;
let setup: TestApp;
let clone: string;
let empty: string;

beforeAll(async () => {
  buildOnce();
  const databaseUrl = await createTestDatabase();
  const adminUrl = process.env.TEST_PG_ADMIN_URL!;
  const name = new URL(databaseUrl).pathname.slice(1);
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(`${name}_clone`)} TEMPLATE ${pg.escapeIdentifier(name)}`);
  } finally {
    await admin.end();
  }
  clone = withDatabase(adminUrl, `${name}_clone`);
  empty = withDatabase(adminUrl, `${name}_empty`);
  await createDatabaseIfMissing(adminUrl, `${name}_empty`);
  setup = await startTestApp({}, databaseUrl);
}, 120_000);
afterAll(() => setup?.close());

const reportingReads = async (origin: string) => {
  const metrics = await (await fetch(`${origin}/metrics`)).text();
  const count = (target: string) => Number(new RegExp(`^db_reporting_reads_total\\{target="${target}"\\} (\\d+)`, 'm').exec(metrics)?.[1] ?? 0);
  return { standby: count('standby'), primary: count('primary') };
};

it.each([
  ['a clone of the primary database', () => clone],
  ['an empty database', () => empty],
])(
  'outside production, %s is warned about once and the reports read the primary',
  async (_name, readUrl) => {
    const token = await setup.token(await setup.partner());
    const service = await startService(serviceEnvFor(setup, { DATABASE_READ_URL: readUrl() }));
    try {
      await service.waitForOutput(NOT_A_STANDBY, 10_000);
      const billing = await fetch(`${service.origin}/platform/v1/billing-usage?product=audioapp`, { headers: bearer(token) });
      expect(billing.status).toBe(200);
      expect(await reportingReads(service.origin)).toEqual({ standby: 0, primary: expect.any(Number) });
      expect((await reportingReads(service.origin)).primary).toBeGreaterThan(0);
      expect(service.output().match(NOT_A_STANDBY)).toHaveLength(1);
    } finally {
      service.child.kill('SIGTERM');
      await service.exit();
    }
  },
  60_000,
);

it('in production, refuses to start in one line naming DATABASE_READ_URL', async () => {
  const service = runNode('dist/src/main.js', [], {
    NODE_ENV: 'production',
    // A database of its own, first set up with this secret.
    DATABASE_URL: await createTestDatabase(),
    DATABASE_READ_URL: clone,
    SERVER_SECRET: 'Zx8Qm2vL0aR7tK4pW9cE1yH6uJ3nB5dF-standby',
    PUBLIC_BASE_URL: 'https://api.example.com',
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'warn',
  });
  expect(await service.exit()).toBe(1);
  expect(service.output().trim().split('\n')).toEqual([
    expect.stringMatching(/^Configuration error: DATABASE_READ_URL is not a standby of DATABASE_URL: it is not in recovery/),
  ]);
}, 60_000);
