export interface BucketPolicy {
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
}
