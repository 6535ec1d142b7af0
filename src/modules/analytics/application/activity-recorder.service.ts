import { Injectable } from '@nestjs/common';
import type { SqlFragment } from '../../../shared/persistence/sql.js';
import { ActivityRepository, type ActivitySql, type ReadingActivity } from '../domain/activity.repository.js';

/**
 * The door through which the reading and playback modules record activity: the queries
 * their statements embed, so that the activity is written in the statement that makes the
 * change it records (ADR 0025).
 */
@Injectable()
export class ActivityRecorder {
  constructor(private readonly activities: ActivityRepository) {}

  /** Records one activity of `kind` per row of `from`. */
  recordQuery(activity: ActivitySql, kind: ReadingActivity['kind'], from: SqlFragment): SqlFragment {
    return this.activities.recordQuery(activity, kind, from);
  }

  /** A row when the activity on the chapter is already rolled up for its UTC day: nothing more to record that day. */
  recordedQuery(activity: ActivitySql): SqlFragment {
    return this.activities.recordedQuery(activity);
  }
}
