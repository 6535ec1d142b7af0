import { Injectable } from '@nestjs/common';
import { sql, type SqlFragment } from '../../../shared/persistence/sql.js';
import { ActivityRepository, type ActivitySql, type ReadingActivity } from '../domain/activity.repository.js';

/**
 * The raw events of reading activity. A trigger on `reading_activity` rolls each into the
 * per-day tables the engagement report counts from (migration 1763900400000), in the same
 * statement, so nothing else needs to be written.
 */
@Injectable()
export class PgActivityRepository extends ActivityRepository {
  recordQuery(activity: ActivitySql, kind: ReadingActivity['kind'], from: SqlFragment): SqlFragment {
    return sql`INSERT INTO reading_activity (partner_id, environment, subscriber_id, novel_id, chapter_number, kind, occurred_at)
    SELECT ${activity.partner}::uuid, ${activity.environment}::text, ${activity.subscriber}::text, ${activity.novel}::text, ${activity.chapter}::integer, ${kind}, ${activity.at}::timestamptz FROM ${from}`;
  }

  recordedQuery(activity: ActivitySql): SqlFragment {
    return sql`SELECT FROM reading_chapter_days
     WHERE partner_id = ${activity.partner} AND environment = ${activity.environment} AND subscriber_id = ${activity.subscriber}
       AND novel_id = ${activity.novel} AND chapter_number = ${activity.chapter} AND day = (${activity.at}::timestamptz AT TIME ZONE 'UTC')::date`;
  }
}
