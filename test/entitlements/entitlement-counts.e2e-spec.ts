import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { EntitlementsService } from '../../src/modules/entitlements/index.js';
import { SignedCountFolding } from '../../src/shared/persistence/signed-counts.js';
import { useTestApp } from '../support/test-app.js';

/**
 * The counts behind billing usage (migration 1764100400000) must sum to what a scan of
 * entitlements and entitlement_history says, and its per-day summaries (migration
 * 1764100500000) give the figures a scan gives, whatever the writes, erasures and folds.
 */
const PARTNER = '00000000-0000-4000-8000-0000000000d1';
const FIRST_DAY = Date.UTC(2026, 2, 1);
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
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

/** Writes, erasures and folds; `writes` weighs the writes against each of the others. */
function steps(writes: number): fc.Arbitrary<Step[]> {
  const step: fc.Arbitrary<Step> = fc.oneof(
    {
      weight: writes,
      arbitrary: fc.record({
        kind: fc.constant('write' as const),
        subscriber: fc.integer({ min: 0, max: 4 }),
        product: fc.constantFrom('textapp' as const, 'kidsapp' as const),
        status: fc.constantFrom(...STATUSES),
        // Whole hours: changes share instants, and some fall at 00:00 (counted in that day's 00:00 figure).
        at: fc.tuple(fc.integer({ min: -1, max: 3 }), fc.integer({ min: 0, max: 23 })).map(([day, hour]) => FIRST_DAY + day * DAY_MS + hour * HOUR_MS),
        stale: fc.boolean(),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('erase' as const), subscriber: fc.integer({ min: 0, max: 4 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('fold' as const) }) },
  );
  return fc.array(step, { minLength: 1, maxLength: 25 });
}

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
      fc.asyncProperty(steps(1), async (written) => {
        await db.query('TRUNCATE entitlements, entitlement_history, entitlement_counts, entitlement_day_peaks');
        for (const s of written) await apply(s);
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

/** The billing figures of [FIRST_DAY, until) from a scan of the history (the definition). */
async function scannedHistory(product: string, until: number, dayStarts: number[]) {
  const rows: { at: Date; move: number }[] = await db.query(
    `SELECT effective_at AS at, (new_status = 'active')::int - (old_status IS NOT DISTINCT FROM 'active')::int AS move
       FROM entitlement_history WHERE partner_id = $1 AND product = $2 AND NOT stale AND effective_at < $3`,
    [PARTNER, product, new Date(until)],
  );
  const countAt = (instant: number) => rows.filter((row) => row.at.getTime() <= instant).reduce((sum, row) => sum + row.move, 0);
  const atStart = countAt(FIRST_DAY);
  const inside = rows.map((row) => row.at.getTime()).filter((instant) => instant > FIRST_DAY);
  return {
    activeAtEnd: countAt(Infinity),
    peakActive: Math.max(atStart, ...inside.map(countAt)),
    averageDailyActive: dayStarts.reduce((sum, day) => sum + countAt(day), 0) / dayStarts.length,
  };
}

async function reportedHistory(product: 'textapp' | 'kidsapp', until: number, dayStarts: number[]) {
  const history = await t.app.get(EntitlementsService).activeCountHistory(
    { partnerId: PARTNER, environment: 'live' },
    product,
    new Date(FIRST_DAY),
    new Date(until),
    dayStarts.map((day) => new Date(day)),
  );
  return { activeAtEnd: history.activeAtEnd, peakActive: history.peakActive, averageDailyActive: history.averageDailyActive };
}

describe('billing history from per-day summaries', () => {
  it('gives the figures a scan of the history gives, settled or pending, whole days or up to now (property)', async () => {
    // Until a midnight (a past month) or mid-day (the current month, summaries reaching past now).
    const until = fc
      .tuple(fc.integer({ min: 0, max: 3 }), fc.constantFrom(0, 1, 7 * HOUR_MS, 12 * HOUR_MS + 1, 20 * HOUR_MS))
      .map(([day, time]) => FIRST_DAY + day * DAY_MS + (time || DAY_MS));
    await fc.assert(
      fc.asyncProperty(steps(4), until, fc.constantFrom('textapp' as const, 'kidsapp' as const), async (written, end, product) => {
        await db.query('TRUNCATE entitlements, entitlement_history, entitlement_counts, entitlement_day_peaks');
        for (const s of written) await apply(s);
        const dayStarts = Array.from({ length: 4 }, (_, day) => FIRST_DAY + day * DAY_MS).filter((day) => day <= end);
        expect(await reportedHistory(product, end, dayStarts)).toEqual(await scannedHistory(product, end, dayStarts));
        await apply({ kind: 'fold' });
        expect(await reportedHistory(product, end, dayStarts)).toEqual(await scannedHistory(product, end, dayStarts));
      }),
      { numRuns: 60 },
    );
  });

  it('keeps a day pending when its change commits while the day is being settled', async () => {
    await db.query('TRUNCATE entitlements, entitlement_history, entitlement_counts, entitlement_day_peaks');
    await apply({ kind: 'write', subscriber: 0, product: 'textapp', status: 'active', at: FIRST_DAY + 3_600_000, stale: false });
    await apply({ kind: 'fold' });
    const late = db.createQueryRunner();
    await late.connect();
    try {
      await late.startTransaction();
      // Earlier in the day than the summary's last instant: the summary no longer holds.
      await late.query(
        `INSERT INTO entitlement_history (partner_id, environment, subscriber_id, product, old_status, new_status, internal_plan, changed_by, effective_at)
         VALUES ($1, 'live', 's1', 'textapp', NULL, 'active', 'plan', 'test', $2)`,
        [PARTNER, new Date(FIRST_DAY + 60_000)],
      );
      await apply({ kind: 'fold' });
      await late.commitTransaction();
    } finally {
      await late.release();
    }
    const [{ pending }] = await db.query(`SELECT count(*)::int AS pending FROM entitlement_day_peaks WHERE NOT settled`);
    expect(pending).toBe(1);
    const dayStarts = [FIRST_DAY, FIRST_DAY + DAY_MS];
    const expected = { activeAtEnd: 2, peakActive: 2, averageDailyActive: 1 };
    expect(await scannedHistory('textapp', FIRST_DAY + 2 * DAY_MS, dayStarts)).toEqual(expected);
    expect(await reportedHistory('textapp', FIRST_DAY + 2 * DAY_MS, dayStarts)).toEqual(expected);
    await apply({ kind: 'fold' });
    expect(await reportedHistory('textapp', FIRST_DAY + 2 * DAY_MS, dayStarts)).toEqual(expected);
  });
});
