import { defineStatement, sql, type SqlFragment } from '../../shared/persistence/sql.js';
import type { SubscriberKeySql } from '../../shared/persistence/subscriber-key.js';
import { recordQuery } from '../analytics/queries.js';
import type { SubscriberFeatures } from '../entitlements/index.js';
import { featuresQuery } from '../entitlements/queries.js';
import type { NovelProgress } from './domain/novel-progress.js';
import type { Reader } from './domain/reading-progress.repository.js';

/**
 * The statement builders of the reading module, for its own repository, other modules'
 * infrastructure (playback's statements) and the bench's baseline: the one door for SQL
 * over novel_progress (ADR 0025).
 */

/**
 * A subscriber's progress and features in one query (ADR 0123): the features row is the
 * entitlements module's query over its own table, and the progress is left-joined to it, so a
 * subscriber who never opened the novel still gets its features. Narrowed to one novel when
 * `novel` is given. `readerOfRow` reads its columns.
 */
export function readerQuery(who: SubscriberKeySql, novel?: unknown): SqlFragment {
  const progress = sql`SELECT p.novel_id AS "novelId", p.started_at AS "startedAt", p.current_chapter AS "currentChapter",
         p.finished_at AS "finishedAt", p.chosen_choice_id AS "chosenChoiceId", f.reading, f.audio, f."earlyAccess"
    FROM (${featuresQuery(who)}) AS f
    LEFT JOIN novel_progress p ON p.partner_id = ${who.partner} AND p.environment = ${who.environment} AND p.subscriber_id = ${who.subscriber}`;
  return novel === undefined ? progress : sql`${progress} AND p.novel_id = ${novel}`;
}

/**
 * Moves current_chapter forward to `chapter`, never back, when `onlyIf` holds: the one rule
 * of "reading or listening to a chapter advances the reader", for the text path and for
 * playback's statements alike.
 */
export function advanceQuery(who: SubscriberKeySql, novel: unknown, chapter: unknown, onlyIf: SqlFragment): SqlFragment {
  return sql`UPDATE novel_progress SET current_chapter = ${chapter}
     WHERE partner_id = ${who.partner} AND environment = ${who.environment} AND subscriber_id = ${who.subscriber} AND novel_id = ${novel}
       AND current_chapter < ${chapter} AND ${onlyIf}`;
}

/** The columns of readerQuery, as a row answers them. */
export type ReaderRow = { [K in keyof NovelProgress]: NovelProgress[K] | null } & SubscriberFeatures;

export function readerOfRow(row: ReaderRow): Reader {
  const { novelId, startedAt, currentChapter, finishedAt, chosenChoiceId, reading, audio, earlyAccess } = row;
  return {
    progress: novelId === null ? null : { novelId, startedAt: startedAt!, currentChapter: currentChapter!, finishedAt, chosenChoiceId },
    features: { reading, audio, earlyAccess },
  };
}

/** Reading's hot statements, rendered once (fixed texts, sent as prepared statements). */
export const READING_STATEMENTS = {
  /** One reader of one novel, with the features. */
  reader: defineStatement(['partner', 'environment', 'subscriber', 'novel'], (s) => readerQuery(s, s.novel)),
  /** Every novel of a reader, newest first, with the features (one row with null progress when none). */
  readers: defineStatement(['partner', 'environment', 'subscriber'], (s) => sql`${readerQuery(s)} ORDER BY p.started_at DESC, p.novel_id`),
  /** The text path: the read recorded (analytics' activity) and the reader moved on, in one statement. */
  chapterRead: defineStatement(
    ['partner', 'environment', 'subscriber', 'novel', 'chapter', 'at'],
    (s) => sql`WITH recorded AS (${recordQuery(s, 'text', sql`(SELECT) AS one`)}), advanced AS (${advanceQuery(s, s.novel, s.chapter, sql`true`)}) SELECT`,
  ),
};
