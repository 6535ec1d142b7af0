import fc from 'fast-check';
import { DataSource } from 'typeorm';
import {
  featuresOf,
  INTERNAL_PLANS,
  PRODUCTS,
  SUBSCRIBER_FEATURES_PARAMETERS,
  SUBSCRIBER_FEATURES_SQL,
  type EntitlementGrant,
  type InternalPlan,
} from '../../src/modules/entitlements/index.js';
import { partnerClient } from '../fixtures/partner-client.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let db: DataSource;
let partnerId: string;

beforeAll(async () => {
  t = await startTestApp();
  db = t.app.get(DataSource);
  partnerId = (await partnerClient(t)).partnerId;
});
afterAll(() => t.close());

const plan = fc.constantFrom(...(Object.keys(INTERNAL_PLANS) as InternalPlan[]));
const status = fc.constantFrom('active', 'suspended', 'canceled' as const);
/** At most one entitlement per product (the table's key), each with any status and plan. */
const grants = fc
  .tuple(...PRODUCTS.map((product) => fc.option(fc.record({ product: fc.constant(product), status, internalPlan: plan }), { nil: undefined })))
  .map((rows) => rows.filter((row): row is EntitlementGrant => row !== undefined));

describe('the features statement other modules join (ADR 0107)', () => {
  it('says what featuresOf says, for every set of entitlements, against the real table', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(grants, async (rows) => {
        const subscriberId = `features-${run++}`;
        for (const row of rows) {
          await db.query(`INSERT INTO entitlements (partner_id, environment, subscriber_id, product, status, internal_plan) VALUES ($1, 'live', $2, $3, $4, $5)`, [
            partnerId,
            subscriberId,
            row.product,
            row.status,
            row.internalPlan,
          ]);
        }
        const [fromSql] = await db.query(SUBSCRIBER_FEATURES_SQL, [partnerId, 'live', subscriberId, ...SUBSCRIBER_FEATURES_PARAMETERS]);
        expect(fromSql).toEqual(featuresOf(rows));
      }),
      { numRuns: 150 },
    );
  });

  it('answers one row of falses for a subscriber without entitlements, and ignores other partners and environments', async () => {
    const other = (await partnerClient(t)).partnerId;
    await db.query(`INSERT INTO entitlements (partner_id, environment, subscriber_id, product, status, internal_plan) VALUES ($1, 'live', 'shared-id', 'audioapp', 'active', 'audio_early')`, [other]);
    await db.query(`INSERT INTO entitlements (partner_id, environment, subscriber_id, product, status, internal_plan) VALUES ($1, 'sandbox', 'shared-id', 'audioapp', 'active', 'audio_early')`, [partnerId]);
    const rows = await db.query(SUBSCRIBER_FEATURES_SQL, [partnerId, 'live', 'shared-id', ...SUBSCRIBER_FEATURES_PARAMETERS]);
    expect(rows).toEqual([{ reading: false, audio: false, earlyAccess: false }]);
  });
});
