import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config.js';
import { DomainError, type ErrorDetails } from '../../../shared/errors/domain-error.js';
import { RateLimitStore, type BucketPolicy, type Grant } from '../domain/rate-limit-store.js';
import { LeasedTokens } from '../domain/leased-tokens.js';
import { rateLimitFields, refusalDetails } from '../domain/ratelimit-fields.js';
import type { SourceBudget } from '../domain/source-address.js';

/**
 * A lease takes this fraction of the burst: a quarter makes the bucket's statement rare (one
 * per 25 requests at the default burst of 100) while replicas near the limit can still
 * share it; a larger share would let one replica strand more of the budget for a second.
 */
const LEASE_SHARE_OF_BURST = 4;

/** A token taken ahead of an attempt, to return if the attempt is not what the budget counts. */
export interface TakenToken {
  giveBack(): void | Promise<void>;
}

/** Allowed, with the RateLimit fields a success carries; or refused, with what the refusal tells. */
export type RateLimitDecision = { allowed: true; headers: Record<string, string> } | { allowed: false; refusal: ErrorDetails };

/**
 * Rate limits shared by every replica (DECISIONS 19). Tokens live in PostgreSQL; a replica
 * takes them a few at a time (a lease) and spends them locally, so the database sees one
 * statement per lease rather than per request. A lease is debited when taken, so replicas
 * together never exceed the budget; unused leased tokens expire (slight under-admission).
 * How long a lease lives is LeasedTokens' rule.
 */
@Injectable()
export class RateLimiter {
  private readonly leases = new LeasedTokens();
  private readonly fetching = new Map<string, Promise<Grant>>();
  readonly defaultPolicy: BucketPolicy;

  constructor(
    private readonly store: RateLimitStore,
    @Inject(AppConfig) config: AppConfig,
  ) {
    this.defaultPolicy = { name: 'credential', ratePerSecond: config.rateLimitRps, burst: config.rateLimitBurst };
  }

  /** Spends one token of `key`, or throws 429 `rate_limited` with Retry-After. */
  async consumeOrThrow(key: string, policy = this.defaultPolicy): Promise<Record<string, string>> {
    const decision = await this.consume(key, policy);
    if (!decision.allowed) {
      throw new DomainError('rate_limited', 'Too many requests for this credential: slow down and retry after the time in Retry-After.', decision.refusal);
    }
    return decision.headers;
  }

  /**
   * For budgets spent only by failures: takes one token of `key` first, so requests in
   * flight at once get no more through than the budget holds, or refuses with 429 when it
   * is empty. The caller gives the token back when what it allowed did not fail.
   */
  async takeForAttempt(key: string, policy: BucketPolicy, description: string): Promise<TakenToken> {
    const grant = await this.store.take(key, 1, policy);
    if (grant.granted === 0) throw new DomainError('rate_limited', description, refusalDetails(policy, grant.remaining));
    return { giveBack: () => this.store.giveBack(key, 1, policy) };
  }

  /**
   * takeForAttempt on each of `budgets` (a source address's, ADR 0065), all or none: the
   * first empty one refuses, and what was taken before it is given back.
   */
  async takeForAttemptFromEach(budgets: SourceBudget[], description: string): Promise<TakenToken> {
    const taken: TakenToken[] = [];
    const giveBackAll = async () => {
      for (const token of taken) await token.giveBack();
    };
    try {
      for (const budget of budgets) taken.push(await this.takeForAttempt(budget.key, budget.policy, description));
    } catch (error) {
      await giveBackAll();
      throw error;
    }
    return { giveBack: giveBackAll };
  }

  /**
   * Spends `count` tokens of `key` at once, or none: refuses with 429 and the time until the
   * bucket holds them all. For work whose size is known only once done (a test clock's
   * events): call it inside that work's transaction, which the refusal rolls back.
   */
  async spendOrThrow(key: string, count: number, policy: BucketPolicy, description: string): Promise<void> {
    if (count <= 0) return;
    const grant = await this.store.take(key, count, policy);
    if (grant.granted === count) return;
    if (grant.granted > 0) await this.store.giveBack(key, grant.granted, policy);
    throw new DomainError('rate_limited', description, refusalDetails(policy, grant.remaining + grant.granted, count));
  }

  async consume(key: string, policy = this.defaultPolicy): Promise<RateLimitDecision> {
    // A few rounds: concurrent requests of this replica may spend a fresh lease first.
    for (let round = 0; round < 5; round++) {
      const level = this.leases.spend(key);
      if (level !== undefined) return { allowed: true, headers: rateLimitFields(policy, level) };
      const grant = await this.fetchLease(key, policy);
      if (grant.granted === 0) return refusal(policy, grant.remaining);
    }
    return refusal(policy, 0);
  }

  /** One lease request per key at a time; concurrent callers share it. */
  private fetchLease(key: string, policy: BucketPolicy): Promise<Grant> {
    let pending = this.fetching.get(key);
    if (!pending) {
      const size = Math.max(1, Math.ceil(policy.burst / LEASE_SHARE_OF_BURST));
      pending = this.store
        .take(key, size, policy)
        .then((grant) => {
          if (grant.granted > 0) this.leases.hold(key, grant.granted, grant.remaining);
          return grant;
        })
        .finally(() => this.fetching.delete(key));
      this.fetching.set(key, pending);
    }
    return pending;
  }
}

function refusal(policy: BucketPolicy, remaining: number): RateLimitDecision {
  return { allowed: false, refusal: refusalDetails(policy, remaining) };
}
