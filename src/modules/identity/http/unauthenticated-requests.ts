import { Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { AppConfig } from '../../../config/app-config.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { ReplicaBuckets, sourceAddressKey, type TakenToken } from '../../rate-limiting/index.js';

/**
 * The budget of requests that fail authentication, per source address (an IPv6 /64): a
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
  private readonly buckets: ReplicaBuckets;

  constructor(@Inject(AppConfig) config: AppConfig) {
    this.buckets = new ReplicaBuckets({ name: 'unauthenticated', ratePerSecond: config.unauthenticatedRps, burst: config.unauthenticatedBurst });
  }

  /** Takes one unit of the request's address, or refuses it (429) when the address has none left. */
  take(request: FastifyRequest): TakenToken {
    const key = sourceAddressKey(request.ip);
    if (this.buckets.take(key)) return { giveBack: () => this.buckets.giveBack(key) };
    throw new DomainError(
      'rate_limited',
      'Too many requests that failed authentication from this address: check the credentials and retry after the time in Retry-After.',
      this.buckets.refusalDetails(key),
    );
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
