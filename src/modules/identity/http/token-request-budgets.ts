import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '../../../config/app-config.js';
import { RateLimiter, sourceBudgets, type BucketPolicy } from '../../rate-limiting/index.js';
import { spendOnAuthenticationFailure, UnauthenticatedRequests } from './unauthenticated-requests.js';

/**
 * The rate budgets of the token endpoints (DECISIONS 27). A client id is public (every
 * token carries it), so a budget spent before the secret is checked would let anyone lock
 * its owner out. Failures therefore spend a budget of their own per (client id, source
 * address), taken before the secret is checked and given back when it was right; the
 * credential's budget is spent only by requests that authenticated, so someone else's
 * failures never refuse a success.
 */
@Injectable()
export class TokenRequestBudgets {
  private readonly failures: BucketPolicy;

  constructor(
    private readonly rateLimiter: RateLimiter,
    private readonly unauthenticated: UnauthenticatedRequests,
    @Inject(AppConfig) config: AppConfig,
  ) {
    this.failures = { name: 'token-failures', ratePerSecond: config.tokenFailuresPerMinute / 60, burst: config.tokenFailuresPerMinute };
  }

  /** Runs `issue` (which authenticates the client) within the budgets of `clientId`. */
  async issue<T>(request: FastifyRequest, reply: FastifyReply, clientId: string, issue: () => Promise<T>): Promise<T> {
    // First the address's failures whatever the client id (in memory: an address trying
    // random client ids causes no statement), then those for this client id. Each unit is
    // taken before the secret is checked and given back unless it was wrong.
    const issued = await spendOnAuthenticationFailure(this.unauthenticated.take(request), async () => {
      const failure = await this.rateLimiter.takeForAttemptFromEach(
        sourceBudgets(request.ip, this.failures).map((budget) => ({ ...budget, key: `token-failure:${clientId}:${budget.key}` })),
        'Too many failed authentications for this client from this address (or its IPv6 /48): check the client secret and retry after the time in Retry-After.',
      );
      return spendOnAuthenticationFailure(failure, issue);
    });
    reply.headers(await this.rateLimiter.consumeOrThrow(`token-client:${clientId}`));
    return issued;
  }
}
