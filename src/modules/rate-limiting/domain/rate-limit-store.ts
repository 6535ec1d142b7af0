export interface BucketPolicy {
  /** Names the policy in the RateLimit header fields (`credential`, `token-failures`…). */
  name: string;
  /** Sustained rate, tokens per second. */
  ratePerSecond: number;
  /** Bucket capacity: the largest burst. */
  burst: number;
}

export interface Grant {
  /** Tokens taken from the shared bucket (0 when empty). */
  granted: number;
  /** Tokens left in the shared bucket after the grant. */
  remaining: number;
}

/** Token buckets every replica shares. */
export abstract class RateLimitStore {
  /** Takes up to `wanted` whole tokens from the bucket `key`, refilled to now. */
  abstract take(key: string, wanted: number, policy: BucketPolicy): Promise<Grant>;
  /** Returns `count` tokens to the bucket `key`, up to its burst. */
  abstract giveBack(key: string, count: number, policy: BucketPolicy): Promise<void>;
  /** The tokens the bucket `key` holds now, refilled, without taking any (a full bucket when absent). */
  abstract level(key: string, policy: BucketPolicy): Promise<number>;
  /** Deletes up to `limit` buckets untouched since `before`; returns how many. */
  abstract purgeIdle(before: Date, limit: number): Promise<number>;
}
