import type { SqlFragment } from '../../../shared/persistence/sql.js';
import type { SubscriberKeySql } from '../../../shared/persistence/subscriber-key.js';

/** One chapter-text read or one playback-position write (DECISIONS 14). */
export interface ReadingActivity {
  subscriberId: string;
  novelId: string;
  chapterNumber: number;
  kind: 'text' | 'audio';
  occurredAt: Date;
}

/** A reader's activity on a chapter as a statement's values or slots (sql.ts). */
export interface ActivitySql extends SubscriberKeySql {
  novel: unknown;
  chapter: unknown;
  at: unknown;
}

/**
 * Reading activity, recorded inside the statements of the modules whose writes it records
 * (ADR 0025): analytics owns reading_activity and its rollups, so it writes the queries
 * over them, and the reading and playback statements embed them.
 */
export abstract class ActivityRepository {
  /** Inserts one activity row of `kind` per row `from` answers (none: nothing recorded). The rollup trigger fires as for any insert. */
  abstract recordQuery(activity: ActivitySql, kind: ReadingActivity['kind'], from: SqlFragment): SqlFragment;
  /** Answers a row when the reader's activity on the chapter is already rolled up for the UTC day of `at` (ADR 0123). */
  abstract recordedQuery(activity: ActivitySql): SqlFragment;
}
