import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { foldSignedCounts } from '../../bench/shared/seed.js';
import { TEST_BASE_URL, TEST_SERVER_SECRET } from '../support/test-app.js';
import { createTestDatabase } from '../support/test-database.js';

/**
 * The bench seed's last step before measuring (docs/performance.md): every table the service's
 * signed-count job settles, settled by the job's own registry and statements: each signed
 * count folded to one settled row per key, with every key's sum kept and keys that sum to zero
 * gone, and the billing day summaries settled by their own rule.
 */
const partnerId = randomUUID();
let db: pg.Client;
let url: string;

beforeAll(async () => {
  url = await createTestDatabase();
  db = new pg.Client({ connectionString: url });
  await db.connect();
});

afterAll(() => db.end());

const sums = async (table: string, key: string) =>
  (
    await db.query<{ key: string; sum: string; rows: number }>(
      `SELECT ${key} AS key, sum(count)::text AS sum, count(*)::int AS rows FROM ${table} GROUP BY 1 ORDER BY 1`,
    )
  ).rows;

test('folds every signed-count table to one settled row per key, keeping each sum', async () => {
  // Day deltas, some of one key (the trigger adds each to its month), one key summing to zero.
  const day = `INSERT INTO engagement_day_counts (partner_id, environment, measure, day, novel_id, choice_id, count) VALUES ($1, 'live', 'endings', $2, $3, 'stay', $4)`;
  for (const [when, novel, count] of [
    ['2026-10-01', 'heir', 3],
    ['2026-10-01', 'heir', 4],
    ['2026-10-02', 'heir', -1],
    ['2026-10-05', 'pact', 2],
    ['2026-10-05', 'pact', -2],
  ] as const) {
    await db.query(day, [partnerId, when, novel, count]);
  }
  await db.query(
    `INSERT INTO kids_day_counts (partner_id, environment, measure, day, count) VALUES ($1, 'live', 'minutes', '2026-10-01', 5), ($1, 'live', 'minutes', '2026-10-01', 2.5)`,
    [partnerId],
  );
  const dayKey = `novel_id || ' ' || day`;
  const monthKey = `novel_id || ' ' || month`;

  // A billing day marked pending by an entitlement change: settled by its own rule, not by key.
  await db.query(
    `INSERT INTO entitlement_day_peaks (partner_id, environment, product, day, changed_from) VALUES ($1, 'live', 'premium', '2026-10-01', '2026-10-01T08:00:00Z')`,
    [partnerId],
  );

  const folded = await foldSignedCounts(db, {
    DATABASE_URL: url,
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    PUBLIC_BASE_URL: TEST_BASE_URL,
    SERVER_SECRET: TEST_SERVER_SECRET,
    DATA_DIR: mkdtempSync(join(tmpdir(), 'prl-seed-fold-')),
  });

  expect(folded).toEqual(
    expect.arrayContaining([
      'engagement_day_counts',
      'engagement_month_counts',
      'kids_day_counts',
      'entitlement_counts',
      'webhook_delivery_counts',
      'entitlement_day_peaks',
    ]),
  );
  for (const table of folded) {
    expect((await db.query(`SELECT count(*)::int AS n FROM ${table} WHERE NOT settled`)).rows[0].n).toBe(0);
  }
  expect(await sums('engagement_day_counts', dayKey)).toEqual([
    { key: 'heir 2026-10-01', sum: '7', rows: 1 },
    { key: 'heir 2026-10-02', sum: '-1', rows: 1 },
  ]);
  expect(await sums('engagement_month_counts', monthKey)).toEqual([{ key: 'heir 2026-10-01', sum: '6', rows: 1 }]);
  expect(await sums('kids_day_counts', `measure || ' ' || day`)).toEqual([{ key: 'minutes 2026-10-01', sum: '7.5', rows: 1 }]);
});
