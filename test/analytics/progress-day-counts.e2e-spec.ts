import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { SignedCountFolding } from '../../src/shared/persistence/signed-counts.js';
import { useTestApp } from '../support/test-app.js';

/**
 * The started, finished and ending counts per day (migration 1764100300000) must sum, over
 * every period, to what a scan of novel_progress counts, whatever the opens, finishes,
 * erasures and folds that made them.
 */
const PARTNER = '00000000-0000-4000-8000-0000000000c1';
const FIRST_DAY = Date.UTC(2026, 2, 1);
const DAY_MS = 86_400_000;
const DAYS = 6;

const t = useTestApp();
let db: DataSource;

beforeAll(() => {
  db = t.app.get(DataSource);
});

type Step =
  | { kind: 'open'; subscriber: number; novel: number; at: number }
  | { kind: 'finish'; subscriber: number; novel: number; at: number; choice: string | null }
  | { kind: 'erase'; subscriber: number }
  | { kind: 'fold' };

const subscriber = fc.integer({ min: 0, max: 4 });
const novel = fc.integer({ min: 0, max: 1 });
const at = fc.integer({ min: FIRST_DAY, max: FIRST_DAY + DAYS * DAY_MS - 1 });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('open' as const), subscriber, novel, at }),
  fc.record({ kind: fc.constant('finish' as const), subscriber, novel, at, choice: fc.constantFrom('stay', 'leave', null) }),
  fc.record({ kind: fc.constant('erase' as const), subscriber }),
  fc.record({ kind: fc.constant('fold' as const) }),
);

async function apply(step: Step): Promise<void> {
  const key = (s: number, n: number) => [PARTNER, `s${s}`, `n${n}`];
  if (step.kind === 'open') {
    await db.query(
      `INSERT INTO novel_progress (partner_id, environment, subscriber_id, novel_id, started_at) VALUES ($1, 'live', $2, $3, $4)
       ON CONFLICT DO NOTHING`,
      [...key(step.subscriber, step.novel), new Date(step.at)],
    );
  } else if (step.kind === 'finish') {
    // As choosing an ending does; a null choice stands for an older finish without one.
    await db.query(
      `UPDATE novel_progress SET finished_at = $4, chosen_choice_id = $5, current_chapter = current_chapter + 1
        WHERE partner_id = $1 AND environment = 'live' AND subscriber_id = $2 AND novel_id = $3`,
      [...key(step.subscriber, step.novel), new Date(step.at), step.choice],
    );
  } else if (step.kind === 'erase') {
    await db.query(`DELETE FROM novel_progress WHERE partner_id = $1 AND subscriber_id = $2`, [PARTNER, `s${step.subscriber}`]);
  } else {
    await t.app.get(SignedCountFolding).foldAll();
  }
}

const day = (offset: number) => new Date(FIRST_DAY + offset * DAY_MS).toISOString().slice(0, 10);

/** Every period of the test days where the counts and a scan of novel_progress disagree. */
async function mismatches(): Promise<unknown[]> {
  const [row] = await db.query(
    `SELECT coalesce(jsonb_agg(jsonb_build_object('start', s, 'end', e, 'counted', counted, 'scanned', scanned)), '[]') AS mismatches
       FROM generate_series(0, $2::int - 1) AS first_offset,
            LATERAL (SELECT $1::date + first_offset AS s) AS starts,
            LATERAL (SELECT s + length - 1 AS e FROM generate_series(1, $2::int - first_offset) AS length) AS ends,
            LATERAL (SELECT jsonb_build_object(
                'started', (SELECT coalesce(sum(count), 0) FROM engagement_day_counts WHERE measure = 'started' AND day BETWEEN s AND e),
                'finished', (SELECT coalesce(sum(count), 0) FROM engagement_day_counts WHERE measure = 'finished' AND day BETWEEN s AND e),
                'endings', (SELECT coalesce(jsonb_object_agg(novel_id || '/' || choice_id, n), '{}') FROM (
                  SELECT novel_id, choice_id, sum(count) AS n FROM engagement_day_counts WHERE measure = 'endings' AND day BETWEEN s AND e
                   GROUP BY 1, 2 HAVING sum(count) <> 0) AS c)) AS counted) AS c,
            LATERAL (SELECT jsonb_build_object(
                'started', (SELECT count(*) FROM novel_progress WHERE started_at >= s::timestamp AT TIME ZONE 'UTC' AND started_at < (e + 1)::timestamp AT TIME ZONE 'UTC'),
                'finished', (SELECT count(finished_at) FROM novel_progress WHERE started_at >= s::timestamp AT TIME ZONE 'UTC' AND started_at < (e + 1)::timestamp AT TIME ZONE 'UTC'),
                'endings', (SELECT coalesce(jsonb_object_agg(novel_id || '/' || chosen_choice_id, n), '{}') FROM (
                  SELECT novel_id, chosen_choice_id, count(*) AS n FROM novel_progress
                   WHERE chosen_choice_id IS NOT NULL AND finished_at >= s::timestamp AT TIME ZONE 'UTC' AND finished_at < (e + 1)::timestamp AT TIME ZONE 'UTC'
                   GROUP BY 1, 2) AS p)) AS scanned) AS x
      WHERE counted <> scanned`,
    [day(0), DAYS],
  );
  return row.mismatches;
}

describe('started, finished and ending counts per day', () => {
  it('sum to what novel_progress holds, for every period, whatever the writes and folds (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
        await db.query('TRUNCATE novel_progress, engagement_day_counts, engagement_month_counts');
        for (const s of steps) await apply(s);
        expect(await mismatches()).toEqual([]);
        await apply({ kind: 'fold' });
        expect(await mismatches()).toEqual([]);
      }),
      { numRuns: 40 },
    );
  });

  it('leave a chapter read alone: updating the current chapter writes no count', async () => {
    await db.query('TRUNCATE novel_progress, engagement_day_counts, engagement_month_counts');
    await apply({ kind: 'open', subscriber: 1, novel: 0, at: FIRST_DAY });
    const countRows = async () => (await db.query(`SELECT count(*)::int AS n FROM engagement_day_counts`))[0].n;
    const before = await countRows();
    await db.query(`UPDATE novel_progress SET current_chapter = 3 WHERE subscriber_id = 's1'`);
    expect(await countRows()).toBe(before);
  });
});
