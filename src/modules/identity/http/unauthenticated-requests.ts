import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '../../../config/app-config.js';
import { ApiError } from '../../../shared/errors/api-error.js';
import { ReplicaBuckets } from '../../rate-limiting/index.js';

/**
 * The budget of requests whose bearer token is missing or invalid, per source address.
 * Such a request has no credential to charge, yet a forged token naming a real key costs
 * an ECDSA verification: without this budget one address could keep a replica's CPU busy.
 * It is per replica (it protects that replica's CPU) and spent by every 401 the access
 * guard answers; while it is empty, the address is refused before any verification.
 */
@Injectable()
export class UnauthenticatedRequests implements OnModuleInit {
  private readonly buckets: ReplicaBuckets;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(AppConfig) config: AppConfig,
  ) {
    this.buckets = new ReplicaBuckets({ ratePerSecond: config.unauthenticatedRps, burst: config.unauthenticatedBurst });
  }

  onModuleInit(): void {
    // The operations CLI builds the modules without an HTTP server: nothing to watch.
    if (!this.adapterHost.httpAdapter) return;
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onResponse', (request, reply, done) => {
      if (isBearerRefusal(reply)) this.buckets.spend(request.ip);
      done();
    });
  }

  /** Refuses the request (429) while its address has no budget left. */
  refuseIfSpent(request: FastifyRequest): void {
    if (this.buckets.level(request.ip) >= 1) return;
    throw new ApiError('rate_limited', 'Too many requests without a valid access token from this address: get a token and retry after the time in Retry-After.', {
      'Retry-After': String(this.buckets.secondsUntilToken(request.ip)),
    });
  }
}

/** The access guard's 401s, and only those: the token endpoints answer 401 with Basic. */
const isBearerRefusal = (reply: FastifyReply) => reply.statusCode === 401 && /^bearer/i.test(String(reply.getHeader('www-authenticate') ?? ''));
