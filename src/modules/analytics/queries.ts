import { sql, type SqlFragment } from '../../shared/persistence/sql.js';
import type { SubscriberKeySql } from '../../shared/persistence/subscriber-key.js';
import type { Tenant } from '../../shared/tenancy/tenant.js';
import { countSpans } from './domain/count-spans.js';
import type { ReadingActivity } from './domain/reading-activity.js';
import type { ReportingWindow } from './domain/reporting-window.js';

/**
 * The statement builders of the analytics module, for other modules' infrastructure and the
 * bench to embed (ADR 0025): the reading and playback statements record activity in the
 * statement that makes the change it records. The one door for SQL over analytics' tables.
 */

/** A reader's activity on a chapter as a statement's values or slots (sql.ts). */
export interface ActivitySql extends SubscriberKeySql {
  novel: unknown;
  chapter: unknown;
  at: unknown;
}

/**
 * Inserts one activity row of `kind` per row `from` answers (none: nothing recorded). The
 * rollup trigger on `reading_activity` rolls it into the per-day tables in the same statement.
 */
export function recordQuery(activity: ActivitySql, kind: ReadingActivity['kind'], from: SqlFragment): SqlFragment {
  return sql`INSERT INTO reading_activity (partner_id, environment, subscriber_id, novel_id, chapter_number, kind, occurred_at)
    SELECT ${activity.partner}::uuid, ${activity.environment}::text, ${activity.subscriber}::text, ${activity.novel}::text, ${activity.chapter}::integer, ${kind}, ${activity.at}::timestamptz FROM ${from}`;
}

/** Answers a row when the reader's activity on the chapter is already rolled up for the UTC day of `at`: nothing more to record that day (ADR 0123). */
export function recordedQuery(activity: ActivitySql): SqlFragment {
  return sql`SELECT FROM reading_chapter_days
     WHERE partner_id = ${activity.partner} AND environment = ${activity.environment} AND subscriber_id = ${activity.subscriber}
       AND novel_id = ${activity.novel} AND chapter_number = ${activity.chapter} AND day = (${activity.at}::timestamptz AT TIME ZONE 'UTC')::date`;
}

/**
 * The count rows of `measures` (constants, never input) over a window: the monthly sums of
 * its months read whole ($3..$4, none when null) and the day counts of the spans
 * ($5 first, $6 last, $7 sign) of countSpans. Together they sum exactly the window's days.
 *
 * Each row's count is read as an integer: `sum` of a bigint answers a numeric, and making,
 * comparing and casting one numeric per ending cost PostgreSQL a fifth of the ending
 * statement; `sum` of integers answers a bigint. One partner's count for one month and ending
 * stays far below 2^31, and the report's figures are integers already.
 */
const countRows = (measures: string) => `
  SELECT measure, since_day, novel_id, choice_id, count::int AS count FROM engagement_month_counts
   WHERE partner_id = $1 AND environment = $2 AND measure IN (${measures}) AND month BETWEEN $3::date AND $4::date
  UNION ALL
  SELECT d.measure, d.since_day, d.novel_id, d.choice_id, d.count::int * s.sign
    FROM unnest($5::date[], $6::date[], $7::int[]) AS s (first, last, sign)
    JOIN engagement_day_counts d ON d.partner_id = $1 AND d.environment = $2 AND d.measure IN (${measures}) AND d.day BETWEEN s.first AND s.last`;

/**
 * The engagement report's three statements (PgEngagementRepository), fixed texts that the
 * bench's baseline sends too. $1..$7 are engagementCountParameters'.
 */
export const ENGAGEMENT_STATEMENTS = {
  /**
   * $8: the window's first day. A key counts once, on its first day in the window: the rows
   * whose previous day with activity falls before the window (migrations 1763900400000, 1764100300000).
   */
  readingTotals: `SELECT coalesce(sum(count) FILTER (WHERE measure = 'readers'), 0)::int AS active_readers,
              coalesce(sum(count) FILTER (WHERE measure = 'chapters'), 0)::int AS chapters_read
         FROM (${countRows(`'readers', 'chapters'`)}) AS c
        WHERE since_day < $8::date`,
  startedNovels: `SELECT coalesce(sum(count) FILTER (WHERE measure = 'started'), 0)::int AS started,
              coalesce(sum(count) FILTER (WHERE measure = 'finished'), 0)::int AS finished
         FROM (${countRows(`'started', 'finished'`)}) AS c`,
  /**
   * $8: the smallest cohort kept. Unordered and without labels: the service labels the rows
   * from the catalog in memory and puts them in the catalog's order (labelEndings), which
   * spares PostgreSQL a join with every ending and a sort that grow with the audience.
   */
  endingCounts: `SELECT novel_id AS "novelId", choice_id AS "choiceId", sum(count)::int AS count
         FROM (${countRows(`'endings'`)}) AS c
        GROUP BY novel_id, choice_id
       HAVING sum(count) >= $8`,
};

/** $1..$7 of ENGAGEMENT_STATEMENTS: the tenant, and where the window's counts are read (countSpans). */
export function engagementCountParameters(tenant: Tenant, window: ReportingWindow): unknown[] {
  const { months, days } = countSpans(window);
  return [
    tenant.partnerId,
    tenant.environment,
    months?.first ?? null,
    months?.last ?? null,
    days.map((span) => span.first),
    days.map((span) => span.last),
    days.map((span) => span.sign),
  ];
}
