import { SUBSCRIBER_FEATURES_SQL, type SubscriberFeatures } from '../../entitlements/index.js';
import type { NovelProgress } from '../domain/novel-progress.js';

/**
 * A subscriber's progress and features in one statement (ADR 0083): the features are the
 * entitlements module's query over its own table, and the progress is left-joined to that
 * one row, so a subscriber who never opened the novel still gets its features. Reading owns
 * novel_progress, so it writes this query; playback embeds it in its own statements.
 * Binds $1–$6 as SUBSCRIBER_FEATURES_SQL does. It ends inside the join's condition: a
 * caller narrows it to one novel with `AND p.novel_id = $n` before anything else.
 */
export const PROGRESS_WITH_FEATURES_SQL = `SELECT p.novel_id AS "novelId", p.started_at AS "startedAt", p.current_chapter AS "currentChapter",
         p.finished_at AS "finishedAt", p.chosen_choice_id AS "chosenChoiceId", f.reading, f.audio, f."earlyAccess"
    FROM (${SUBSCRIBER_FEATURES_SQL}) AS f
    LEFT JOIN novel_progress p ON p.partner_id = $1 AND p.environment = $2 AND p.subscriber_id = $3`;

export type ProgressWithFeaturesRow = { [K in keyof NovelProgress]: NovelProgress[K] | null } & SubscriberFeatures;

export function readerOfRow(row: ProgressWithFeaturesRow): { progress: NovelProgress | null; features: SubscriberFeatures } {
  const { novelId, startedAt, currentChapter, finishedAt, chosenChoiceId, reading, audio, earlyAccess } = row;
  return {
    progress: novelId === null ? null : { novelId, startedAt: startedAt!, currentChapter: currentChapter!, finishedAt, chosenChoiceId },
    features: { reading, audio, earlyAccess },
  };
}
