/**
 * The engagement report's counts per day are signed deltas appended by the writers
 * (migration 1764100300000); folding merges each key's deltas into one settled row, so
 * that a report reads about one row per key, however many writes made it.
 */
export abstract class EngagementCountsRepository {
  /** Call in a unit of work: false when another replica is folding (it holds the turn until its commit). */
  abstract takeFoldingTurn(): Promise<boolean>;
  /** Folds every key among the oldest `batch` pending deltas; how many pending deltas it found. */
  abstract fold(batch: number): Promise<number>;
}
