import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppConfig } from '../../../config/app-config.js';
import { ApiError } from '../../../shared/errors/api-error.js';
import { ReplicaBuckets } from '../../rate-limiting/index.js';

/**
 * The budget of requests that fail authentication, per source address: a missing or
 * invalid bearer token, or a token request refused with invalid_client. Such a request has
 * no credential to charge, yet a forged token naming a real key costs an ECDSA
 * verification, and a token request for a random client id costs database statements:
 * without this budget one address could keep a replica busy. It is per replica (it
 * protects that replica) and spent by every 401; while it is empty, the address is
 * refused before any verification or lookup.
 */
@Injectable()
export class UnauthenticatedRequests implements OnModuleInit {
  private readonly buckets: ReplicaBuckets;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(AppConfig) config: AppConfig,
  ) {
    this.buckets = new ReplicaBuckets({ name: 'unauthenticated', ratePerSecond: config.unauthenticatedRps, burst: config.unauthenticatedBurst });
  }

  onModuleInit(): void {
    // The operations CLI builds the modules without an HTTP server: nothing to watch.
    if (!this.adapterHost.httpAdapter) return;
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onResponse', (request, reply, done) => {
      // 401 is only ever an authentication failure (DECISIONS 3, 5).
      if (reply.statusCode === 401) this.buckets.spend(request.ip);
      done();
    });
  }

  /** Refuses the request (429) while its address has no budget left. */
  refuseIfSpent(request: FastifyRequest): void {
    if (this.buckets.level(request.ip) >= 1) return;
    throw new ApiError(
      'rate_limited',
      'Too many requests that failed authentication from this address: check the credentials and retry after the time in Retry-After.',
      this.buckets.refusalFields(request.ip),
    );
  }
}
