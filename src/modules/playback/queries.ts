import { defineStatement, sql } from '../../shared/persistence/sql.js';
import { recordQuery, recordedQuery, type ActivitySql } from '../analytics/queries.js';
import { ANSWER_SLOTS, answerInWork, type AnswerSlot } from '../idempotency/queries.js';
import { advanceQuery, readerQuery } from '../reading/queries.js';

/**
 * The statements of the playback module (ADR 0123, 0025), for its repository and the bench's
 * baseline: playback writes its own table, and embeds the queries the owners of the others
 * wrote through their `queries.ts`: reading's reader row and chapter advance (over
 * novel_progress, with entitlements' features), analytics' activity record and its "already
 * recorded today" check. Rendered once, at load.
 */
type PutSlot = keyof ActivitySql | 'seconds' | 'standardCutoff' | 'earlyCutoff';

const slots: PutSlot[] = ['partner', 'environment', 'subscriber', 'novel', 'chapter', 'seconds', 'at', 'standardCutoff', 'earlyCutoff'];
/** The reader, and whether the chapter is released to it (finished, or started before the plan's cutoff: ReleaseCondition). */
const readerAndRelease = (s: Record<PutSlot, unknown>) => sql`reader AS (${readerQuery(s, s.novel)}
), released AS (
  SELECT FROM reader
   WHERE "finishedAt" IS NOT NULL OR "startedAt" < CASE WHEN "earlyAccess" THEN ${s.earlyCutoff}::timestamptz ELSE ${s.standardCutoff}::timestamptz END
)`;
/** Stores the position, replacing the stored one: concurrent writers of one key queue on the row instead of racing to insert it. */
const storePosition = (
  s: Record<PutSlot, unknown>,
  onlyIf: ReturnType<typeof sql>,
) => sql`INSERT INTO playback_positions (partner_id, environment, subscriber_id, novel_id, chapter_number, position_seconds, updated_at)
  SELECT ${s.partner}::uuid, ${s.environment}::text, ${s.subscriber}::text, ${s.novel}::text, ${s.chapter}::integer, ${s.seconds}::integer, ${s.at}::timestamptz FROM released WHERE ${onlyIf}
  ON CONFLICT (partner_id, environment, subscriber_id, novel_id) DO UPDATE
    SET chapter_number = EXCLUDED.chapter_number, position_seconds = EXCLUDED.position_seconds, updated_at = EXCLUDED.updated_at
  RETURNING chapter_number, position_seconds, updated_at`;
/**
 * The reader moves on to the chapter. The usual write, a position within the chapter
 * being listened to, does not: the reader's row, already read, says so, and the UPDATE is
 * skipped without a second index lookup; the UPDATE's own condition decides under the lock.
 */
const advance = (s: Record<PutSlot, unknown>, onlyIf: ReturnType<typeof sql>) =>
  advanceQuery(s, s.novel, s.chapter, sql`(SELECT "currentChapter" FROM reader) < ${s.chapter} AND ${onlyIf}`);
/**
 * A keyed PUT (DECISIONS 30) stores its answer in the statement that stores the position
 * (ADR 0144): one statement, not two, after the claim. Unkeyed, the statement is the plain one.
 */
type Keyed = Record<PutSlot | AnswerSlot, unknown>;
const answered = (s: Keyed | null, done: ReturnType<typeof sql>) =>
  s
    ? sql`, answered AS (${answerInWork(s, done)}
)`
    : sql``;
const answerStored = (s: Keyed | null) => (s ? sql`, EXISTS (SELECT FROM answered) AS answer_stored` : sql``);
const keyedSlots = [...slots, ...ANSWER_SLOTS];

/**
 * The usual save, a few seconds after the last one: when the chapter is released AND
 * the listening is already recorded for the UTC day of the write, stores the position
 * and moves the reader on; otherwise it writes nothing and says which (not released:
 * the PUT is refused; not yet recorded: the full write follows). It names no table with
 * a trigger or partitions, the cost of the full write.
 */
const usualSave = (s: Record<PutSlot, unknown>, keyed: Keyed | null) => sql`WITH ${readerAndRelease(s)}, recorded AS (${recordedQuery(s)}
), stored AS (${storePosition(s, sql`EXISTS (SELECT FROM recorded)`)}
), advanced AS (${advance(s, sql`EXISTS (SELECT FROM released) AND EXISTS (SELECT FROM recorded)`)}
)${answered(keyed, sql`EXISTS (SELECT FROM stored)`)}
SELECT s.chapter_number, s.position_seconds, s.updated_at, r.*, EXISTS (SELECT FROM released) AS released${answerStored(keyed)}
  FROM reader r LEFT JOIN stored s ON true`;
/**
 * The first save of a chapter on a UTC day: when the chapter is released, stores the
 * position, records the listening (analytics' rollup trigger fires as for any insert)
 * and moves the reader on. One statement is one implicit transaction: all of it or none.
 */
const firstSaveOfDay = (s: Record<PutSlot, unknown>, keyed: Keyed | null) => sql`WITH ${readerAndRelease(s)}, stored AS (${storePosition(s, sql`true`)}
), listened AS (${recordQuery(s, 'audio', sql`released`)}
), advanced AS (${advance(s, sql`EXISTS (SELECT FROM released)`)}
)${answered(keyed, sql`EXISTS (SELECT FROM stored)`)}
SELECT s.chapter_number, s.position_seconds, s.updated_at, r.*${answerStored(keyed)} FROM reader r LEFT JOIN stored s ON true`;

export const PLAYBACK_STATEMENTS = {
  usualSave: defineStatement(slots, (s) => usualSave(s, null)),
  firstSaveOfDay: defineStatement(slots, (s) => firstSaveOfDay(s, null)),
  /** The same two with a keyed PUT's answer stored when the position is. */
  usualSaveAnswered: defineStatement(keyedSlots, (s) => usualSave(s, s)),
  firstSaveOfDayAnswered: defineStatement(keyedSlots, (s) => firstSaveOfDay(s, s)),
  /** The stored position beside the reader (the drip's inputs), in one statement: playback's GET. */
  positionWithReader: defineStatement(
    ['partner', 'environment', 'subscriber', 'novel'],
    (s) => sql`SELECT pp.chapter_number, pp.position_seconds, pp.updated_at, r.*
  FROM (${readerQuery(s, s.novel)}) AS r
  LEFT JOIN playback_positions pp ON pp.partner_id = ${s.partner} AND pp.environment = ${s.environment} AND pp.subscriber_id = ${s.subscriber} AND pp.novel_id = ${s.novel}`,
  ),
};
