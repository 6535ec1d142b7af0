import { sql, type SqlFragment } from '../../../shared/persistence/sql.js';
import type { SubscriberKeySql } from '../../../shared/persistence/subscriber-key.js';
import type { SubscriberFeatures } from '../../entitlements/index.js';
import type { NovelProgress } from '../domain/novel-progress.js';
import type { Reader } from '../domain/reading-progress.repository.js';

/**
 * A subscriber's progress and features in one query (ADR 0123, 0025): the features row is
 * the entitlements module's query over its own table, and the progress is left-joined to
 * it, so a subscriber who never opened the novel still gets its features. Narrowed to one
 * novel when `novel` is given. Reading owns novel_progress, so it writes this query;
 * playback's statements embed it (through ReadingProgressService).
 */
export function readerQuery(features: SqlFragment, who: SubscriberKeySql, novel?: unknown): SqlFragment {
  const progress = sql`SELECT p.novel_id AS "novelId", p.started_at AS "startedAt", p.current_chapter AS "currentChapter",
         p.finished_at AS "finishedAt", p.chosen_choice_id AS "chosenChoiceId", f.reading, f.audio, f."earlyAccess"
    FROM (${features}) AS f
    LEFT JOIN novel_progress p ON p.partner_id = ${who.partner} AND p.environment = ${who.environment} AND p.subscriber_id = ${who.subscriber}`;
  return novel === undefined ? progress : sql`${progress} AND p.novel_id = ${novel}`;
}

/**
 * Moves current_chapter forward to `chapter`, never back, when `onlyIf` holds: the one
 * rule of "reading or listening to a chapter advances the reader", for the text path and
 * for playback's statements alike.
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
