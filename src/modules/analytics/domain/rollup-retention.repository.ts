/**
 * The per-day rollups (`reading_reader_days`, `reading_chapter_days`) past the retention of
 * their subscriber ids (ADR 0143): each row keeps its day and links, and its id becomes an
 * unlinkable stand-in.
 */
export abstract class RollupRetentionRepository {
  /** Replaces the ids of at most `limit` rows before `day` (YYYY-MM-DD) in each rollup; how many. */
  abstract anonymiseBefore(day: string, limit: number): Promise<number>;
}
