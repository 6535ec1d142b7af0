/** A lease unused this long is dropped, so a replica that goes quiet hoards nothing. */
export const LEASE_IDLE_MS = 1000;
/**
 * A lease in use is renewed after this long even with tokens left, so the level it reports
 * in the RateLimit field is never older, and a slow trickle of requests does not keep a
 * share of the burst stranded on one replica for longer (ADR 0123).
 */
export const LEASE_MAX_AGE_MS = 10_000;

interface Lease {
  tokens: number;
  takenAt: number;
  usedAt: number;
  /** The shared bucket's level when the lease was taken. */
  sharedRemaining: number;
}

/**
 * Tokens this replica took from shared buckets ahead of its requests (a lease per key). A
 * lease lives while it is used at least once a second, up to LEASE_MAX_AGE_MS: a steady
 * client costs the database one statement per lease spent or per ten seconds, not one per
 * second. Unspent tokens of a dropped lease are lost (slight under-admission), never reused.
 */
export class LeasedTokens {
  private readonly leases = new Map<string, Lease>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxKeys = 50_000,
  ) {}

  /** Spends one leased token of `key` and returns the bucket level to report, or undefined when this replica holds none. */
  spend(key: string): number | undefined {
    const lease = this.leases.get(key);
    const now = this.now();
    if (!lease || lease.tokens < 1 || now - lease.usedAt >= LEASE_IDLE_MS || now - lease.takenAt >= LEASE_MAX_AGE_MS) return undefined;
    lease.tokens -= 1;
    lease.usedAt = now;
    return lease.sharedRemaining + lease.tokens;
  }

  /** Records `tokens` just taken from the shared bucket of `key`, which then held `sharedRemaining`. */
  hold(key: string, tokens: number, sharedRemaining: number): void {
    if (this.leases.size >= this.maxKeys && !this.leases.has(key)) this.leases.clear();
    const now = this.now();
    this.leases.set(key, { tokens, takenAt: now, usedAt: now, sharedRemaining });
  }
}
