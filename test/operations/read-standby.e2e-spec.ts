import pg from 'pg';
import { createDatabaseIfMissing } from '../../src/database/database-location.js';
import { Db } from '../../src/shared/persistence/db.js';
import { ReportingDb, STANDBY_STALENESS_BOUND_MS } from '../../src/shared/persistence/reporting-db.js';
import { UnitOfWork } from '../../src/shared/persistence/unit-of-work.js';
import { clusterRoot, removeRoot, restoreCopy, startPrimary, startStandby, type Cluster } from '../support/clusters.js';
import { bearer, startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Issue 27, item 8 and the backup check of docs/operations.md, against real clusters from
 * the embedded binaries: reports read on a streaming standby (DATABASE_READ_URL) while it
 * is within STANDBY_STALENESS_BOUND_MS of the primary, and on the primary otherwise; a
 * restored copy with the same SERVER_SECRET answers the same, with another refuses.
 */
const DATABASE = 'partner_api';
let root: string;
let primary: Cluster & { password: string };
let standby: Cluster;
let app: TestApp;
let token: string;

beforeAll(async () => {
  root = clusterRoot();
  primary = await startPrimary(root);
  await createDatabaseIfMissing(primary.adminUrl, DATABASE);
  standby = await startStandby(root, primary);
  app = await startTestApp({ DATABASE_READ_URL: standby.urlFor(DATABASE) }, primary.urlFor(DATABASE));
  token = await app.token(await app.partner({ environment: 'sandbox' }));
}, 120_000);
afterAll(async () => {
  await app?.close();
  await standby?.stop();
  await primary?.stop();
  removeRoot(root);
});

const reads = () => ({ ...app.app.get(ReportingDb).reads });
const activate = (subscriberId: string) =>
  app.inject({
    method: 'POST',
    url: '/platform/v1/entitlements',
    headers: bearer(token),
    payload: { subscriber_id: subscriberId, product: 'audioapp', status: 'active' },
  });
const activeAtEnd = async () => {
  const response = await app.inject({ method: 'GET', url: '/platform/v1/billing-usage?product=audioapp', headers: bearer(token) });
  expect(response.statusCode).toBe(200);
  return response.json().period_active_at_end as number;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` for up to `ms`. */
async function eventually(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await sleep(200);
  }
  return false;
}

it("reads billing history on the standby once it has caught up, with the primary's answer", async () => {
  await activate('standby-1');
  const onStandby = await eventually(async () => {
    const before = reads().standby;
    const figure = await activeAtEnd();
    return reads().standby > before && figure === 1;
  }, 10_000);
  expect(onStandby).toBe(true);
});

it('reads inside a unit of work on the primary, in its transaction, while the standby is fresh (a children’s month being fixed)', async () => {
  const reporting = app.app.get(ReportingDb);
  const applicationName = async () => (await reporting.query<{ name: string }>(`SELECT current_setting('application_name') AS name`))[0].name;
  expect(await eventually(async () => (await applicationName()) === 'partner-reading-listening-api:reports', 10_000)).toBe(true);
  const inTransaction = await app.app.get(UnitOfWork).run(async () => {
    await app.app.get(Db).query(`SET LOCAL application_name = 'fixing-a-month'`);
    return applicationName();
  });
  expect(inTransaction).toBe('fixing-a-month');
});

it('reads on the primary while the standby lags more than the bound, so no answer is staler than that', async () => {
  const replica = new pg.Client({ connectionString: standby.adminUrl });
  await replica.connect();
  try {
    await replica.query('SELECT pg_wal_replay_pause()');
    await activate('standby-2');
    await sleep(STANDBY_STALENESS_BOUND_MS + 2_000);
    const before = reads();
    expect(await activeAtEnd()).toBe(2);
    expect(reads().primary).toBeGreaterThan(before.primary);
    expect(reads().standby).toBe(before.standby);
  } finally {
    await replica.query('SELECT pg_wal_replay_resume()');
    await replica.end();
  }
}, 30_000);

it('answers from the primary when the standby is down', async () => {
  await standby.stop();
  await activate('standby-3');
  const before = reads().primary;
  expect(await activeAtEnd()).toBe(3);
  expect(reads().primary).toBeGreaterThan(before);
});

describe('a restore from a backup', () => {
  it('answers the same with the same SERVER_SECRET, and refuses to start with another', async () => {
    const credential = await app.partner();
    await app.close();
    app = undefined as unknown as TestApp;
    await primary.stop();
    const restored = await restoreCopy(root, primary, 'restored');
    try {
      const again = await startTestApp({}, restored.urlFor(DATABASE));
      try {
        const sandboxToken = await again.token(await again.partner({ environment: 'sandbox' }));
        expect(typeof (await again.token(credential))).toBe('string');
        expect((await again.inject({ method: 'GET', url: '/platform/v1/subscriber/standby-1/status', headers: bearer(sandboxToken) })).statusCode).toBe(200);
      } finally {
        await again.close();
      }
      await expect(startTestApp({ SERVER_SECRET: 'another-secret-entirely-0123456789abcdef' }, restored.urlFor(DATABASE))).rejects.toThrow(
        /SERVER_SECRET is not the secret this database was set up with/,
      );
    } finally {
      await restored.stop();
    }
  }, 60_000);
});
