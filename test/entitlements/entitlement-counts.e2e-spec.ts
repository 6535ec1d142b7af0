import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { SignedCountFolding } from '../../src/shared/persistence/signed-counts.js';
import { useTestApp } from '../support/test-app.js';

/**
 * The counts behind billing usage (migration 1764100400000) must sum to what a scan of
 * entitlements and entitlement_history says, whatever the writes, erasures and folds.
 */
const PARTNER = '00000000-0000-4000-8000-0000000000d1';
const FIRST_DAY = Date.UTC(2026, 2, 1);
const DAY_MS = 86_400_000;
const STATUSES = ['active', 'suspended', 'canceled'] as const;

const t = useTestApp();
let db: DataSource;

beforeAll(async () => {
  db = t.app.get(DataSource);
  await db.query(`INSERT INTO partners (id, name) VALUES ($1, 'counts') ON CONFLICT DO NOTHING`, [PARTNER]);
});

type Step =
  | { kind: 'write'; subscriber: number; product: 'textapp' | 'kidsapp'; status: (typeof STATUSES)[number]; at: number; stale: boolean }
  | { kind: 'erase'; subscriber: number }
  | { kind: 'fold' };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('write' as const),
    subscriber: fc.integer({ min: 0, max: 4 }),
    product: fc.constantFrom('textapp' as const, 'kidsapp' as const),
    status: fc.constantFrom(...STATUSES),
    at: fc.integer({ min: FIRST_DAY, max: FIRST_DAY + 5 * DAY_MS }),
    stale: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('erase' as const), subscriber: fc.integer({ min: 0, max: 4 }) }),
  fc.record({ kind: fc.constant('fold' as const) }),
);

/** A write as the entitlements repository makes it: the record (unless stale) and a history row. */
async function apply(s: Step): Promise<void> {
  if (s.kind === 'fold') {
    await t.app.get(SignedCountFolding).foldAll();
    return;
  }
  if (s.kind === 'erase') {
    for (const table of ['entitlements', 'entitlement_history']) {
      await db.query(`DELETE FROM ${table} WHERE partner_id = $1 AND subscriber_id = $2`, [PARTNER, `s${s.subscriber}`]);
    }
    return;
  }
  const key = [PARTNER, `s${s.subscriber}`, s.product];
  const [current] = await db.query(
    `SELECT status FROM entitlements WHERE partner_id = $1 AND environment = 'live' AND subscriber_id = $2 AND product = $3`,
    key,
  );
  if (!s.stale) {
    await db.query(
      `INSERT INTO entitlements (partner_id, environment, subscriber_id, product, status, internal_plan) VALUES ($1, 'live', $2, $3, $4, 'plan')
       ON CONFLICT (partner_id, environment, subscriber_id, product) DO UPDATE SET status = EXCLUDED.status`,
      [...key, s.status],
    );
  }
  await db.query(
    `INSERT INTO entitlement_history (partner_id, environment, subscriber_id, product, old_status, new_status, internal_plan, changed_by, effective_at, stale)
     VALUES ($1, 'live', $2, $3, $4, $5, 'plan', 'test', $6, $7)`,
    [...key, current?.status ?? null, s.status, new Date(s.at), s.stale],
  );
}

/** Every product and figure where the summed counts and a scan disagree. */
async function mismatches(): Promise<unknown[]> {
  const [row] = await db.query(
    `SELECT coalesce(jsonb_agg(jsonb_build_object('product', product, 'counted', counted, 'scanned', scanned)), '[]') AS mismatches
       FROM unnest(ARRAY['textapp', 'kidsapp']) AS product,
       LATERAL (SELECT jsonb_build_object(
         'active', (SELECT coalesce(sum(count), 0) FROM entitlement_counts c WHERE c.product = p.product AND measure = 'active'),
         'records', (SELECT coalesce(sum(count), 0) FROM entitlement_counts c WHERE c.product = p.product AND measure = 'records'),
         'created', (SELECT coalesce(sum(count), 0) FROM entitlement_counts c WHERE c.product = p.product AND measure = 'created'),
         'moves', (SELECT coalesce(jsonb_object_agg(day, n), '{}') FROM (
            SELECT day::text, sum(count) AS n FROM entitlement_counts c WHERE c.product = p.product AND measure = 'moves' GROUP BY day HAVING sum(count) <> 0) AS m)
       ) AS counted FROM (SELECT product) AS p) AS c,
       LATERAL (SELECT jsonb_build_object(
         'active', (SELECT count(*) FROM entitlements e WHERE e.product = p.product AND status = 'active'),
         'records', (SELECT count(*) FROM entitlements e WHERE e.product = p.product),
         'created', (SELECT count(*) FROM entitlement_history h WHERE h.product = p.product AND old_status IS NULL AND NOT stale),
         'moves', (SELECT coalesce(jsonb_object_agg(day, n), '{}') FROM (
            SELECT (effective_at AT TIME ZONE 'UTC')::date::text AS day,
                   sum((new_status = 'active')::int - (old_status IS NOT DISTINCT FROM 'active')::int) AS n
              FROM entitlement_history h WHERE h.product = p.product AND NOT stale GROUP BY 1 HAVING sum((new_status = 'active')::int - (old_status IS NOT DISTINCT FROM 'active')::int) <> 0) AS m)
       ) AS scanned FROM (SELECT product) AS p) AS s
      WHERE counted <> scanned`,
  );
  return row.mismatches;
}

describe('entitlement counts', () => {
  it('sum to what the records and the history hold, whatever the writes, erasures and folds (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
        await db.query('TRUNCATE entitlements, entitlement_history, entitlement_counts');
        for (const s of steps) await apply(s);
        expect(await mismatches()).toEqual([]);
        await apply({ kind: 'fold' });
        expect(await mismatches()).toEqual([]);
        const [{ pending }] = await db.query(`SELECT count(*)::int AS pending FROM entitlement_counts WHERE NOT settled`);
        expect(pending).toBe(0);
      }),
      { numRuns: 40 },
    );
  });
});
