import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { countSpans } from '../../src/modules/analytics/domain/count-spans.js';
import { engagementReport, MINIMUM_COHORT_SIZE } from '../../src/modules/analytics/domain/engagement-report.js';
import { isoDate, reportingWindow, windowBetween, type ReportingWindow } from '../../src/modules/analytics/domain/reporting-window.js';
import { engagementReportDto } from '../../src/modules/analytics/http/analytics.dto.js';
import { SignedCountFolding } from '../../src/shared/persistence/signed-counts.js';
import { bearer, useTestApp } from '../support/test-app.js';

/**
 * The report reads whole months from engagement_month_counts and days only at the edges
 * (migration 1764200810000). Its answer through the HTTP stack must be exactly the one the
 * day counts alone give (the statements below, as the report ran them before), for random
 * counts (rollup days, readings started and finished, erasures, stand-ins, folds at any
 * point) and random periods: whole months, one partial month, across years, 366 days. The
 * service labels the endings from the catalog in memory: the reference's join with the
 * endings table checks it too, over a removed novel and an ending the catalog lacks.
 */
const DAY_ONLY = {
  readingTotals: `SELECT coalesce(sum(count) FILTER (WHERE measure = 'readers'), 0)::int AS active_readers,
              coalesce(sum(count) FILTER (WHERE measure = 'chapters'), 0)::int AS chapters_read
         FROM engagement_day_counts
        WHERE partner_id = $1 AND environment = $2 AND measure IN ('readers', 'chapters')
          AND day BETWEEN $3::date AND $4::date AND since_day < $3::date`,
  startedNovels: `SELECT coalesce(sum(count) FILTER (WHERE measure = 'started'), 0)::int AS started,
              coalesce(sum(count) FILTER (WHERE measure = 'finished'), 0)::int AS finished
         FROM engagement_day_counts
        WHERE partner_id = $1 AND environment = $2 AND measure IN ('started', 'finished') AND day BETWEEN $3::date AND $4::date`,
  endingCounts: `SELECT c.novel_id AS "novelId", c.choice_id AS "choiceId", coalesce(e.label, c.choice_id) AS label, c.count
       FROM (SELECT novel_id, choice_id, sum(count)::int AS count
               FROM engagement_day_counts
              WHERE partner_id = $1 AND environment = $2 AND measure = 'endings' AND day BETWEEN $3::date AND $4::date
              GROUP BY novel_id, choice_id
             HAVING sum(count) >= $5) AS c
       LEFT JOIN endings e ON e.environment = $2 AND e.novel_id = c.novel_id AND e.choice_id = c.choice_id
       ORDER BY c.novel_id, e.sort_order NULLS LAST, c.choice_id`,
};

const DAY_MS = 86_400_000;
/** Counts fall on 2025-11-20 and the 560 days after it: two year ends, leap day 2028 not reached. */
const FIRST_DAY = Date.UTC(2025, 10, 20);
const SPAN_DAYS = 560;
const NOVELS = ['months-heir', 'months-pact', 'months-removed'];
const CHOICES = ['stay', 'leave', 'gone'];

const t = useTestApp();
let db: DataSource;

beforeAll(async () => {
  db = t.app.get(DataSource);
  await db.query(`INSERT INTO categories (environment, id, name, sort_order) VALUES ('live', 'months-fixture', 'Drama', 1)`);
  await db.query(
    `INSERT INTO novels (environment, id, title, category_id, language, status, total_chapters)
     VALUES ('live', 'months-heir', 'The Heir', 'months-fixture', 'pt-BR', 'published', 10), ('live', 'months-pact', 'The Pact', 'months-fixture', 'pt-BR', 'published', 10),
            ('live', 'months-removed', 'The Removed', 'months-fixture', 'pt-BR', 'removed', 10)`,
  );
  // 'gone' has no catalog row: labelled by its choice id. Sort order differs from the ids'.
  // A removed novel's endings keep their rows and labels; its two share a sort order.
  await db.query(
    `INSERT INTO endings (environment, novel_id, choice_id, label, ending, sort_order) VALUES
       ('live', 'months-heir', 'stay', 'Stay', '…', 2), ('live', 'months-heir', 'leave', 'Leave', '…', 1),
       ('live', 'months-pact', 'stay', 'Keep it', '…', 1), ('live', 'months-pact', 'leave', 'Break it', '…', 2),
       ('live', 'months-removed', 'stay', 'Stay on', '…', 1), ('live', 'months-removed', 'leave', 'Leave it', '…', 1)`,
  );
});

const day = (offset: number) => isoDate(new Date(FIRST_DAY + offset * DAY_MS));

/** Whose rows: the reported partner in live (0), its sandbox (1), another partner (2). */
const owner = fc.constantFrom(0, 0, 0, 1, 2);
const offset = fc.integer({ min: 0, max: SPAN_DAYS - 1 });
const change = fc.oneof(
  fc.record({
    kind: fc.constant('reader days' as const),
    owner,
    subscriber: fc.integer({ min: 0, max: 5 }),
    days: fc.array(offset, { minLength: 1, maxLength: 12 }),
  }),
  fc.record({
    kind: fc.constant('chapter days' as const),
    owner,
    subscriber: fc.integer({ min: 0, max: 5 }),
    chapter: fc.integer({ min: 1, max: 3 }),
    days: fc.array(offset, { minLength: 1, maxLength: 12 }),
  }),
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('readings' as const),
      owner,
      novel: fc.integer({ min: 0, max: 2 }),
      choice: fc.constantFrom(0, 0, 1, 2),
      readers: fc.integer({ min: 1, max: 30 }),
      started: offset,
      finishedAfter: fc.option(fc.integer({ min: 0, max: 90 })),
    }),
  },
  fc.record({ kind: fc.constant('late finishes' as const), choice: fc.integer({ min: 0, max: 2 }), after: fc.integer({ min: 0, max: 60 }) }),
  fc.record({ kind: fc.constant('erasure' as const), subscriber: fc.integer({ min: 0, max: 5 }) }),
  fc.record({ kind: fc.constant('stand-ins' as const), subscriber: fc.integer({ min: 0, max: 5 }) }),
  fc.constant({ kind: 'fold' as const }),
);
type Change = typeof change extends fc.Arbitrary<infer T> ? T : never;

/** Periods of 1 to 366 days, often starting on the first of a month or ending on the last. */
const period = fc
  .record({ start: fc.integer({ min: -40, max: SPAN_DAYS + 10 }), length: fc.integer({ min: 1, max: 366 }), snapStart: fc.boolean(), snapEnd: fc.boolean() })
  .map(({ start, length, snapStart, snapEnd }) => {
    const first = new Date(FIRST_DAY + start * DAY_MS);
    if (snapStart) first.setUTCDate(1);
    let last = new Date(first.getTime() + (length - 1) * DAY_MS);
    if (snapEnd) {
      const monthEnd = new Date(Date.UTC(last.getUTCFullYear(), last.getUTCMonth() + 1, 0));
      const previousEnd = new Date(Date.UTC(last.getUTCFullYear(), last.getUTCMonth(), 0));
      last = (monthEnd.getTime() - first.getTime()) / DAY_MS < 366 ? monthEnd : previousEnd >= first ? previousEnd : last;
    }
    return windowBetween(first, last);
  });

async function apply(changes: Change[], partners: string[]): Promise<void> {
  const tenant = (who: number) => [partners[who === 2 ? 1 : 0], who === 1 ? 'sandbox' : 'live'];
  for (const [index, c] of changes.entries()) {
    switch (c.kind) {
      case 'reader days':
      case 'chapter days': {
        // Each new day links to the key's latest earlier day stored, as the rollup trigger does.
        const chapter = c.kind === 'chapter days' ? ', novel_id, chapter_number' : '';
        const key = c.kind === 'chapter days' ? `AND e.novel_id = 'months-heir' AND e.chapter_number = ${c.chapter}` : '';
        await db.query(
          `INSERT INTO ${c.kind === 'reader days' ? 'reading_reader_days' : 'reading_chapter_days'} (partner_id, environment, subscriber_id${chapter}, day, previous_day)
           SELECT $1::uuid, $2, $3${c.kind === 'chapter days' ? `, 'months-heir', ${c.chapter}` : ''}, d, coalesce(
                    (SELECT max(e.day) FROM ${c.kind === 'reader days' ? 'reading_reader_days' : 'reading_chapter_days'} e
                      WHERE e.partner_id = $1 AND e.environment = $2 AND e.subscriber_id = $3 ${key} AND e.day < d), '-infinity')
             FROM (SELECT DISTINCT unnest($4::date[]) AS d) AS days
           ON CONFLICT DO NOTHING`,
          [...tenant(c.owner), `reader-${c.subscriber}`, c.days.map(day)],
        );
        break;
      }
      case 'readings':
        await db.query(
          `INSERT INTO novel_progress (partner_id, environment, subscriber_id, novel_id, started_at, current_chapter, finished_at, chosen_choice_id)
           SELECT $1, $2, 'reading-' || $3 || '-' || n, $4, $5::timestamptz, 1, $5::timestamptz + make_interval(days => $6), $7
             FROM generate_series(1, $8::int) AS n`,
          [
            ...tenant(c.owner),
            index,
            NOVELS[c.novel],
            `${day(c.started)}T12:00:00Z`,
            c.finishedAfter,
            c.finishedAfter === null ? null : CHOICES[c.choice],
            c.readers,
          ],
        );
        break;
      case 'late finishes':
        // Row by row through the update trigger: readings finished later, some backdated.
        await db.query(
          `UPDATE novel_progress SET finished_at = started_at + make_interval(days => $2), chosen_choice_id = $3
            WHERE partner_id = $1 AND finished_at IS NULL AND subscriber_id LIKE '%-1'`,
          [partners[0], c.after, CHOICES[c.choice]],
        );
        break;
      case 'erasure':
        for (const table of ['reading_reader_days', 'reading_chapter_days']) {
          await db.query(`DELETE FROM ${table} WHERE partner_id = $1 AND subscriber_id = $2`, [partners[0], `reader-${c.subscriber}`]);
        }
        await db.query(`DELETE FROM novel_progress WHERE partner_id = $1 AND subscriber_id LIKE $2`, [partners[0], `reading-${c.subscriber}-%`]);
        break;
      case 'stand-ins':
        // Erasure and retention replace the id (ADR 0143): no count may move.
        for (const table of ['reading_reader_days', 'reading_chapter_days']) {
          await db.query(`UPDATE ${table} SET subscriber_id = '~' || gen_random_uuid() WHERE partner_id = $1 AND subscriber_id = $2`, [
            partners[0],
            `reader-${c.subscriber}`,
          ]);
        }
        break;
      case 'fold':
        await t.app.get(SignedCountFolding).foldAll();
        break;
    }
  }
}

/** The report the day counts alone give, as the API would serialise it. */
async function dayOnlyReport(partnerId: string, window: ReportingWindow) {
  const [reading] = await db.query(DAY_ONLY.readingTotals, [partnerId, 'live', window.start, window.end]);
  const [novels] = await db.query(DAY_ONLY.startedNovels, [partnerId, 'live', window.start, window.end]);
  const endings = await db.query(DAY_ONLY.endingCounts, [partnerId, 'live', window.start, window.end, MINIMUM_COHORT_SIZE]);
  const report = engagementReport(window, { activeReaders: reading.active_readers, chaptersRead: reading.chapters_read }, novels, endings, new Date(0));
  const { generated_at: _generatedAt, ...dto } = engagementReportDto(report);
  return dto;
}

/**
 * Random counts seldom reach the minimum cohort for one ending of one novel: this case shows
 * a removed novel's two endings (tied in sort order) and, beside a known one, an ending the
 * catalog lacks, finished on day 15 (2025-12-05).
 */
const reading = (novel: number, choice: 0 | 1 | 2, readers: number): Change => ({
  kind: 'readings',
  owner: 0,
  novel,
  choice,
  readers,
  started: 10,
  finishedAfter: 5,
});
const LABELLED_ENDINGS: [Change[], ReportingWindow[]] = [
  [reading(2, 0, 25), reading(2, 1, 22), reading(0, 2, 20), reading(0, 0, 21)],
  [
    ['2025-12-01', '2025-12-31'],
    ['2025-12-05', '2025-12-05'],
    ['2025-11-20', '2026-01-10'],
    ['2025-12-01', '2026-11-30'],
    ['2025-11-01', '2025-12-04'],
    ['2025-12-06', '2026-02-28'],
  ].map(([start, end]) => reportingWindow(start, end)),
];

describe('the engagement report over monthly sums', () => {
  it('answers exactly what the day counts alone answer, for random counts and periods', async () => {
    const seen = { readers: 0, endings: 0, monthsAndDays: 0, removedNovel: 0, endingLacked: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(change, { minLength: 1, maxLength: 14 }), fc.array(period, { minLength: 6, maxLength: 6 }), async (changes, periods) => {
        const partner = await t.partner({ scopes: ['textapp:analytics:read'] });
        const token = await t.token(partner);
        await apply(changes, [partner.partner_id, randomUUID()]);
        for (const window of periods) {
          const response = await t.inject({
            method: 'GET',
            url: `/v1/analytics/engagement?period_start=${window.start}&period_end=${window.end}`,
            headers: bearer(token),
          });
          expect(response.statusCode).toBe(200);
          const { generated_at: _generatedAt, ...answer } = response.json();
          expect(answer).toEqual(await dayOnlyReport(partner.partner_id, window));
          seen.readers += answer.active_readers > 0 ? 1 : 0;
          seen.endings += answer.ending_distribution.length > 0 ? 1 : 0;
          const shown: { novel_id: string; choice_id: string }[] = answer.ending_distribution;
          seen.removedNovel += shown.some((e) => e.novel_id === 'months-removed') ? 1 : 0;
          seen.endingLacked += shown.some((e) => e.choice_id === 'gone') ? 1 : 0;
          const spans = countSpans(window);
          seen.monthsAndDays += spans.months && spans.days.length ? 1 : 0;
        }
      }),
      { numRuns: 60, examples: [LABELLED_ENDINGS] },
    );
    // The periods compared were not all empty, some mixed months and days, and some showed
    // a removed novel's endings and an ending the catalog lacks.
    const { removedNovel, endingLacked, ...figures } = seen;
    expect(Object.values(figures).every((n) => n >= 5)).toBe(true);
    expect(Math.min(removedNovel, endingLacked)).toBeGreaterThanOrEqual(3);
  });

  it('keeps each month equal to the sum of its days, folded or not, and folds into one row per key', async () => {
    const partner = await t.partner({ scopes: ['textapp:analytics:read'] });
    await apply(
      [
        { kind: 'readings', owner: 0, novel: 0, choice: 0, readers: 21, started: 5, finishedAfter: 30 },
        { kind: 'reader days', owner: 0, subscriber: 1, days: [0, 11, 12, 40, 400] },
        { kind: 'fold' },
        { kind: 'reader days', owner: 0, subscriber: 1, days: [10, 41] },
        { kind: 'erasure', subscriber: 1 },
      ],
      [partner.partner_id, randomUUID()],
    );
    const mismatches = `SELECT m.measure, m.month, m.since_day, m.novel_id, m.choice_id, m.count, d.count AS days
      FROM (SELECT measure, month, since_day, novel_id, choice_id, sum(count) AS count FROM engagement_month_counts WHERE partner_id = $1 GROUP BY 1, 2, 3, 4, 5) AS m
      FULL JOIN (SELECT measure, date_trunc('month', day::timestamp)::date AS month, since_day, novel_id, choice_id, sum(count) AS count
                   FROM engagement_day_counts WHERE partner_id = $1 GROUP BY 1, 2, 3, 4, 5) AS d USING (measure, month, since_day, novel_id, choice_id)
     WHERE coalesce(m.count, 0) <> coalesce(d.count, 0)`;
    const [{ pending }] = await db.query(`SELECT count(*)::int AS pending FROM engagement_month_counts WHERE partner_id = $1 AND NOT settled`, [
      partner.partner_id,
    ]);
    expect(pending).toBeGreaterThan(0);
    expect(await db.query(mismatches, [partner.partner_id])).toEqual([]);
    await t.app.get(SignedCountFolding).foldAll();
    expect(await db.query(mismatches, [partner.partner_id])).toEqual([]);
    const [folded] = await db.query(
      `SELECT count(*) FILTER (WHERE NOT settled)::int AS pending, count(*)::int - count(DISTINCT (measure, month, since_day, novel_id, choice_id))::int AS repeated,
              count(*) FILTER (WHERE measure = 'endings')::int AS endings
         FROM engagement_month_counts WHERE partner_id = $1`,
      [partner.partner_id],
    );
    expect(folded).toEqual({ pending: 0, repeated: 0, endings: 1 });
  });
});
