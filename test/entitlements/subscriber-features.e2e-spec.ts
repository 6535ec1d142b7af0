import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { featuresOf, INTERNAL_PLANS, PRODUCTS, type EntitlementGrant, type InternalPlan } from '../../src/modules/entitlements/index.js';
import { featuresQuery } from '../../src/modules/entitlements/queries.js';
import { defineStatement } from '../../src/shared/persistence/sql.js';
import { partnerClient } from '../fixtures/partner-client.js';
import { useTestApp } from '../support/test-app.js';

const t = useTestApp();
let db: DataSource;
let partnerId: string;

/** The features query other modules embed, run on its own. */
let featuresOfSubscriber: (partner: string, environment: string, subscriber: string) => Promise<unknown[]>;

beforeAll(async () => {
  const statement = defineStatement(['partner', 'environment', 'subscriber'], featuresQuery);
  featuresOfSubscriber = (partner, environment, subscriber) =>
    t.app.get(DataSource).query(statement.text, statement.bind({ partner, environment, subscriber }));
  db = t.app.get(DataSource);
  partnerId = (await partnerClient(t)).partnerId;
});

const plan = fc.constantFrom(...(Object.keys(INTERNAL_PLANS) as InternalPlan[]));
const status = fc.constantFrom('active', 'suspended', 'canceled' as const);
/** At most one entitlement per product (the table's key), each with any status and plan. */
const grants = fc
  .tuple(...PRODUCTS.map((product) => fc.option(fc.record({ product: fc.constant(product), status, internalPlan: plan }), { nil: undefined })))
  .map((rows) => rows.filter((row): row is EntitlementGrant => row !== undefined));

describe('the features query other modules embed (ADR 0123, 0025)', () => {
  it('says what featuresOf says, for every set of entitlements, against the real table', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(grants, async (rows) => {
        const subscriberId = `features-${run++}`;
        for (const row of rows) {
          await db.query(
            `INSERT INTO entitlements (partner_id, environment, subscriber_id, product, status, internal_plan) VALUES ($1, 'live', $2, $3, $4, $5)`,
            [partnerId, subscriberId, row.product, row.status, row.internalPlan],
          );
        }
        const [fromSql] = await featuresOfSubscriber(partnerId, 'live', subscriberId);
        expect(fromSql).toEqual(featuresOf(rows));
      }),
      { numRuns: 150 },
    );
  });

  it('answers one row of falses for a subscriber without entitlements, and ignores other partners and environments', async () => {
    const other = (await partnerClient(t)).partnerId;
    await db.query(
      `INSERT INTO entitlements (partner_id, environment, subscriber_id, product, status, internal_plan) VALUES ($1, 'live', 'shared-id', 'audioapp', 'active', 'audio_early')`,
      [other],
    );
    await db.query(
      `INSERT INTO entitlements (partner_id, environment, subscriber_id, product, status, internal_plan) VALUES ($1, 'sandbox', 'shared-id', 'audioapp', 'active', 'audio_early')`,
      [partnerId],
    );
    const rows = await featuresOfSubscriber(partnerId, 'live', 'shared-id');
    expect(rows).toEqual([{ reading: false, audio: false, earlyAccess: false }]);
  });
});
