import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { recordQuery } from '../../src/modules/analytics/queries.js';
import { SignedCountFolding } from '../../src/shared/persistence/signed-counts.js';
import { defineStatement, sql } from '../../src/shared/persistence/sql.js';
import { useTestApp } from '../support/test-app.js';

/**
 * The rollups (migration 1763900400000) and the day counts the engagement report sums
 * (migration 1764100300000) must give the same distinct counts as the raw events, whatever
 * order and batching the events arrive in, and whenever the counts are folded.
 */
const PARTNERS = ['00000000-0000-4000-8000-00000000000a', '00000000-0000-4000-8000-00000000000b'];
const FIRST_DAY = Date.UTC(2026, 2, 1);
const DAY_MS = 86_400_000;
const DAYS = 8;

const t = useTestApp();
let db: DataSource;

beforeAll(async () => {
  db = t.app.get(DataSource);
});
const TRUNCATE = 'TRUNCATE reading_activity, reading_reader_days, reading_chapter_days, engagement_day_counts, engagement_month_counts';
beforeEach(() => db.query(TRUNCATE));

interface Event {
  partner: number;
  environment: 'live' | 'sandbox';
  subscriber: number;
  novel: number;
  chapter: number;
  at: number;
}

const event = fc.record<Event>({
  partner: fc.integer({ min: 0, max: 1 }),
  environment: fc.constantFrom('live', 'sandbox'),
  subscriber: fc.integer({ min: 0, max: 3 }),
  novel: fc.integer({ min: 0, max: 1 }),
  chapter: fc.integer({ min: 1, max: 3 }),
  at: fc.integer({ min: FIRST_DAY, max: FIRST_DAY + DAYS * DAY_MS - 1 }),
});

/** One multi-row INSERT, as a bulk load or a fixture would write it. */
async function insert(events: Event[]): Promise<void> {
  if (!events.length) return;
  const values = events.map(
    (_, i) => `($${i * 6 + 1}::uuid, $${i * 6 + 2}, $${i * 6 + 3}, $${i * 6 + 4}, $${i * 6 + 5}::int, 'text', $${i * 6 + 6}::timestamptz)`,
  );
  await db.query(
    `INSERT INTO reading_activity (partner_id, environment, subscriber_id, novel_id, chapter_number, kind, occurred_at) VALUES ${values.join(', ')}`,
    events.flatMap((e) => [PARTNERS[e.partner], e.environment, `s${e.subscriber}`, `n${e.novel}`, e.chapter, new Date(e.at).toISOString()]),
  );
}

const day = (offset: number) => new Date(FIRST_DAY + offset * DAY_MS).toISOString().slice(0, 10);

/** What the report reads, and what a de-duplication of the raw events says, for every window. */
async function compareEveryWindow(): Promise<void> {
  const [rows] = await db.query(
    `SELECT coalesce(jsonb_agg(mismatch), '[]') AS mismatches FROM (
       SELECT jsonb_build_object('partner', p, 'env', env, 'start', s, 'end', e, 'rollup', rollup, 'counted', counted, 'raw', raw) AS mismatch
       FROM unnest($1::uuid[]) AS p, unnest(ARRAY['live', 'sandbox']) AS env,
            LATERAL (SELECT $2::date + offset_days AS s FROM generate_series(0, $3::int - 1) AS offset_days) AS starts,
            LATERAL (SELECT s + length - 1 AS e FROM generate_series(1, $3::int) AS length) AS ends,
       LATERAL (SELECT
         (SELECT count(*) FROM reading_reader_days r
          WHERE r.partner_id = p AND r.environment = env AND r.day BETWEEN s AND e AND r.previous_day < s) AS readers,
         (SELECT count(*) FROM reading_chapter_days c
          WHERE c.partner_id = p AND c.environment = env AND c.day BETWEEN s AND e AND c.previous_day < s) AS chapters
       ) AS rollup,
       LATERAL (SELECT
         coalesce(sum(count) FILTER (WHERE d.measure = 'readers'), 0) AS readers,
         coalesce(sum(count) FILTER (WHERE d.measure = 'chapters'), 0) AS chapters
         FROM engagement_day_counts d
         WHERE d.partner_id = p AND d.environment = env AND d.measure IN ('readers', 'chapters') AND d.day BETWEEN s AND e AND d.since_day < s
       ) AS counted,
       LATERAL (SELECT count(DISTINCT subscriber_id) AS readers, count(DISTINCT (subscriber_id, novel_id, chapter_number)) AS chapters
                FROM reading_activity a
                WHERE a.partner_id = p AND a.environment = env
                  AND a.occurred_at >= s::timestamp AT TIME ZONE 'UTC' AND a.occurred_at < (e + 1)::timestamp AT TIME ZONE 'UTC') AS raw
       WHERE (rollup.readers, rollup.chapters) <> (raw.readers, raw.chapters) OR (counted.readers, counted.chapters) <> (raw.readers, raw.chapters)
     ) AS mismatches`,
    [PARTNERS, day(0), DAYS],
  );
  expect(rows.mismatches).toEqual([]);
}

describe('reading activity rollups', () => {
  it('count what the raw events count, for events written in any order and batching, folded at any point', async () => {
    const batches = fc.array(fc.record({ events: fc.array(event, { minLength: 1, maxLength: 12 }), foldAfter: fc.boolean() }), { minLength: 1, maxLength: 6 });
    await fc.assert(
      fc.asyncProperty(batches, async (batches) => {
        await db.query(TRUNCATE);
        for (const { events, foldAfter } of batches) {
          await insert(events);
          if (foldAfter) await t.app.get(SignedCountFolding).foldAll();
        }
        await compareEveryWindow();
      }),
      { numRuns: 30 },
    );
  });

  it("count what remains after a subscriber's rows are erased, and fold into one row per key", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(event, { minLength: 1, maxLength: 30 }), fc.integer({ min: 0, max: 3 }), async (events, erased) => {
        await db.query(TRUNCATE);
        await insert(events);
        await t.app.get(SignedCountFolding).foldAll();
        for (const table of ['reading_activity', 'reading_reader_days', 'reading_chapter_days']) {
          await db.query(`DELETE FROM ${table} WHERE subscriber_id = $1`, [`s${erased}`]);
        }
        await compareEveryWindow();
        await t.app.get(SignedCountFolding).foldAll();
        await compareEveryWindow();
        const [{ pending, repeated }] = await db.query(
          `SELECT (SELECT count(*)::int FROM engagement_day_counts WHERE NOT settled) AS pending,
                  (SELECT count(*)::int FROM (SELECT FROM engagement_day_counts
                     GROUP BY partner_id, environment, measure, day, since_day, novel_id, choice_id HAVING count(*) > 1) AS keys) AS repeated`,
        );
        expect({ pending, repeated }).toEqual({ pending: 0, repeated: 0 });
      }),
      { numRuns: 15 },
    );
  });

  it('count a reader back after more than a year away, over the longest periods (366 days)', async () => {
    // Activity partitions exist only around the real date: the reader's days go straight into the rollup.
    const days = [0, 400, 401, 800];
    await db.query(
      `INSERT INTO reading_reader_days (partner_id, environment, subscriber_id, day, previous_day)
       SELECT $1, 'live', 'reader-away', day, coalesce(lag(day) OVER (ORDER BY day), '-infinity') FROM unnest($2::date[]) AS day`,
      [PARTNERS[0], days.map(day)],
    );
    await t.app.get(SignedCountFolding).foldAll();
    for (const [first, last] of [
      [35, 400],
      [36, 401],
      [401, 766],
      [402, 767],
      [435, 800],
      [436, 801],
      [0, 365],
      [401, 401],
      [1, 399],
    ]) {
      const [{ counted }] = await db.query(
        `SELECT coalesce(sum(count), 0)::int AS counted FROM engagement_day_counts
          WHERE measure = 'readers' AND day BETWEEN $1::date AND $2::date AND since_day < $1::date`,
        [day(first), day(last)],
      );
      const active = days.some((d) => d >= first && d <= last) ? 1 : 0;
      expect([first, last, counted]).toEqual([first, last, active]);
    }
  });

  it("roll up what the activity recorder's query writes", async () => {
    const record = defineStatement(['partner', 'environment', 'subscriber', 'novel', 'chapter', 'at'], (s) => recordQuery(s, 'audio', sql`(SELECT) AS one`));
    for (const [chapter, at] of [
      [2, '2026-03-03T10:00:00Z'],
      [2, '2026-03-03T11:00:00Z'],
      [1, '2026-03-01T09:00:00Z'],
    ] as const) {
      await db.query(
        record.text,
        record.bind({ partner: PARTNERS[0], environment: 'live', subscriber: 'reader-1', novel: 'the-heir', chapter, at: new Date(at) }),
      );
    }
    expect(await db.query(`SELECT day::text, previous_day::text FROM reading_reader_days ORDER BY day`)).toEqual([
      { day: '2026-03-01', previous_day: '-infinity' },
      { day: '2026-03-03', previous_day: '2026-03-01' },
    ]);
    expect(await db.query(`SELECT chapter_number, day::text, previous_day::text FROM reading_chapter_days ORDER BY chapter_number`)).toEqual([
      { chapter_number: 1, day: '2026-03-01', previous_day: '-infinity' },
      { chapter_number: 2, day: '2026-03-03', previous_day: '-infinity' },
    ]);
  });

  it('take no lock for a write whose reader, chapter and day are already rolled up', async () => {
    const at = new Date(FIRST_DAY + 3_600_000).getTime();
    const listen = (chapter: number) => ({ partner: 0, environment: 'live' as const, subscriber: 1, novel: 0, chapter, at });
    await insert([listen(1)]);
    const runner = db.createQueryRunner();
    const advisoryLocksHeld = async () =>
      (await runner.query(`SELECT count(*)::int AS count FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()`))[0].count;
    const write = (chapter: number) =>
      runner.query(
        `INSERT INTO reading_activity (partner_id, environment, subscriber_id, novel_id, chapter_number, kind, occurred_at)
         VALUES ($1, 'live', 's1', 'n0', $2, 'audio', $3)`,
        [PARTNERS[0], chapter, new Date(at + 60_000)],
      );
    try {
      await runner.startTransaction();
      await write(1);
      expect(await advisoryLocksHeld()).toBe(0);
      // A chapter not yet rolled up that day takes the partner's and the subscriber's locks.
      await write(2);
      expect(await advisoryLocksHeld()).toBe(2);
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }
    await compareEveryWindow();
  });

  it('stay exact when two transactions write adjacent days of one chapter at once', async () => {
    const first = db.createQueryRunner();
    const second = db.createQueryRunner();
    const write = (runner: typeof first, at: string) =>
      runner.query(
        `INSERT INTO reading_activity (partner_id, environment, subscriber_id, novel_id, chapter_number, kind, occurred_at)
         VALUES ($1, 'live', 'reader-1', 'the-heir', 1, 'text', $2)`,
        [PARTNERS[0], at],
      );
    try {
      await first.startTransaction();
      await second.startTransaction();
      await write(first, '2026-03-05T12:00:00Z');
      // Without the trigger's subscriber lock this would not wait, would not see day 5,
      // and day 5 would keep "-infinity" as its previous day: counted twice over 3..5.
      const secondWrite = write(second, '2026-03-03T12:00:00Z');
      await new Promise((resolve) => setTimeout(resolve, 200));
      await first.commitTransaction();
      await secondWrite;
      await second.commitTransaction();
    } finally {
      await first.release();
      await second.release();
    }
    await compareEveryWindow();
    expect(await db.query(`SELECT day::text, previous_day::text FROM reading_chapter_days ORDER BY day`)).toEqual([
      { day: '2026-03-03', previous_day: '-infinity' },
      { day: '2026-03-05', previous_day: '2026-03-03' },
    ]);
  });
});
