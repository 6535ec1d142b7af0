import { Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AppConfig } from '../../../config/app-config.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { ReplicaBuckets, sourceBudgets, type BucketPolicy, type TakenToken } from '../../rate-limiting/index.js';

/**
 * The budget of requests that fail authentication, per source address (an IPv6 /64, and
 * a larger one per IPv6 /48): a
 * missing or invalid bearer token, or a token request refused with invalid_client. Such a
 * request has no credential to charge, yet a forged token naming a real key costs an
 * ECDSA verification, and a token request for a random client id costs database
 * statements: without this budget one address could keep a replica busy. It is per
 * replica (it protects that replica). A unit is taken before any verification or lookup
 * and given back when the request authenticates, so a burst of simultaneous failures gets
 * no more through than the budget holds (DECISIONS 27).
 */
@Injectable()
export class UnauthenticatedRequests {
  private readonly policy: BucketPolicy;
  /** Buckets by policy name: the addresses', and the IPv6 /48s' (sourceBudgets). */
  private readonly buckets = new Map<string, ReplicaBuckets>();

  constructor(@Inject(AppConfig) config: AppConfig) {
    this.policy = { name: 'unauthenticated', ratePerSecond: config.unauthenticatedRps, burst: config.unauthenticatedBurst };
  }

  /** Takes one unit of each budget of the request's address, or refuses it (429) when one has none left. */
  take(request: FastifyRequest): TakenToken {
    const taken: { buckets: ReplicaBuckets; key: string }[] = [];
    const giveBack = () => {
      for (const { buckets, key } of taken) buckets.giveBack(key);
    };
    for (const budget of sourceBudgets(request.ip, this.policy)) {
      const buckets = this.bucketsOf(budget.policy);
      if (!buckets.take(budget.key)) {
        giveBack();
        throw new DomainError(
          'rate_limited',
          'Too many requests that failed authentication from this address (or its IPv6 /48): check the credentials and retry after the time in Retry-After.',
          buckets.refusalDetails(budget.key),
        );
      }
      taken.push({ buckets, key: budget.key });
    }
    return { giveBack };
  }

  private bucketsOf(policy: BucketPolicy): ReplicaBuckets {
    let buckets = this.buckets.get(policy.name);
    if (!buckets) this.buckets.set(policy.name, (buckets = new ReplicaBuckets(policy)));
    return buckets;
  }
}

/**
 * Runs `attempt` on a token already taken from a failure budget, and gives it back unless
 * it failed authentication: only 401s spend these budgets, and a success, a 429 or an
 * outage leaves them as they were.
 */
export async function spendOnAuthenticationFailure<T>(taken: TakenToken, attempt: () => Promise<T>): Promise<T> {
  let failedAuthentication = false;
  try {
    return await attempt();
  } catch (error) {
    failedAuthentication = error instanceof DomainError && (error.kind === 'invalid_token' || error.kind === 'invalid_client');
    throw error;
  } finally {
    if (!failedAuthentication) await taken.giveBack();
  }
}
