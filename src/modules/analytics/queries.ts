import { sql, type SqlFragment } from '../../shared/persistence/sql.js';
import type { SubscriberKeySql } from '../../shared/persistence/subscriber-key.js';
import type { ReadingActivity } from './domain/reading-activity.js';

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
