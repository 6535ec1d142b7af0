import type { BucketPolicy } from './rate-limit-store.js';
import type { ErrorDetails } from '../../../shared/errors/domain-error.js';
import { refusalDetails } from './ratelimit-fields.js';

interface Bucket {
  tokens: number;
  refreshedAt: number;
}

/**
 * Token buckets kept in this process only, for budgets that protect the process itself
 * (its CPU) rather than a shared resource: nothing to share, and no database statement for
 * an attacker to cause. At most `maxKeys` buckets are kept; the one changed longest ago goes
 * first, and a bucket that is gone is a full one.
 */
export class ReplicaBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    readonly policy: BucketPolicy,
    private readonly maxKeys = 100_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Tokens in the bucket `key` now, refilled. */
  level(key: string): number {
    const bucket = this.buckets.get(key);
    if (!bucket) return this.policy.burst;
    const refill = ((this.now() - bucket.refreshedAt) / 1000) * this.policy.ratePerSecond;
    return Math.min(this.policy.burst, bucket.tokens + refill);
  }

  /**
   * Takes one token of `key` if it holds one, and answers whether it did. Synchronous, so
   * requests in flight at once cannot all see the last token.
   */
  take(key: string): boolean {
    const level = this.level(key);
    // Stored even when refused: an address that keeps trying stays the newest, not the one evicted.
    this.store(key, level < 1 ? level : level - 1);
    return level >= 1;
  }

  /** Returns a token taken from `key`; a bucket that is full again is forgotten (absent means full). */
  giveBack(key: string): void {
    const level = this.level(key) + 1;
    if (level >= this.policy.burst) this.buckets.delete(key);
    else this.store(key, level);
  }

  private store(key: string, tokens: number): void {
    // Re-inserted so the map's order is the order of the last change.
    this.buckets.delete(key);
    if (this.buckets.size >= this.maxKeys) this.buckets.delete(this.buckets.keys().next().value as string);
    this.buckets.set(key, { tokens, refreshedAt: this.now() });
  }

  /** What refusing `key` tells: this policy's quota state and when to retry. */
  refusalDetails(key: string): ErrorDetails {
    return refusalDetails(this.policy, this.level(key));
  }
}
