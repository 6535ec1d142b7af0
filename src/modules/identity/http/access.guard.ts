import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Surface } from '../../../config/app-config.js';
import { ApiError } from '../../../shared/errors/api-error.js';
import { byObject } from '../../../shared/memo.js';
import { surfaceOf } from '../../../shared/http/surfaces.js';
import { RateLimiter } from '../../rate-limiting/index.js';
import { invalidToken } from '../domain/access-token.js';
import { AccessTokenVerifier } from '../application/access-token-verifier.js';
import type { Principal } from '../domain/principal.js';
import type { TokenIssuer } from '../domain/token-issuers.js';
import { ACCESS_RULE, type AccessRule } from './access.decorators.js';
import { spendOnAuthenticationFailure, UnauthenticatedRequests } from './unauthenticated-requests.js';

/** Issuers whose tokens each surface accepts (DECISIONS 3, 15). */
const ACCEPTED_ISSUERS: Record<Surface, readonly TokenIssuer[]> = {
  platform: ['platform'],
  reading: ['platform'],
  sandbox: ['platform'],
  kids: ['kids', 'platform'],
};

/**
 * The one guard of the service, applied to every route: deny unless the route declares
 * its access, then verify the bearer token, spend one unit of the credential's rate
 * budget, and check the environment of the mount and the scopes.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly verifier: AccessTokenVerifier,
    private readonly rateLimiter: RateLimiter,
    private readonly unauthenticated: UnauthenticatedRequests,
  ) {}

  /**
   * Each route's declared rule, read from the decorators' metadata once per route handler:
   * the metadata is fixed when the classes are defined, and reading it walked prototype
   * chains on every request.
   */
  private readonly rules = byObject('identity.route-access-rules', (handler: RouteHandler, controller: ControllerClass): AccessRule => {
    const rule = this.reflector.getAllAndOverride<AccessRule | undefined>(ACCESS_RULE, [handler, controller]);
    if (!rule) throw new Error(`Route ${controller.name}.${handler.name} declares no access rule`);
    return rule;
  });

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const rule = this.rules.get(context.getHandler(), context.getClass());
    if (rule.public) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const surface = surfaceOf(request.routeOptions.url ?? request.url);
    if (!surface) throw new Error(`Protected route outside every mount: ${request.routeOptions.url}`);
    const principal = await spendOnAuthenticationFailure(this.unauthenticated.take(request), async () => {
      const verified = await this.verifier.verify(bearerToken(request), ACCEPTED_ISSUERS[surface]);
      checkEnvironment(verified, surface);
      return verified;
    });
    const budget = await this.rateLimiter.consumeOrThrow(`credential:${principal.clientId}`);
    // An authenticated answer is the partner's alone: no cache on the way may keep it.
    context.switchToHttp().getResponse<FastifyReply>().headers(budget).header('cache-control', 'no-store');
    checkScopes(principal, rule.anyOfScopes);
    request.principal = principal;
    return true;
  }
}

type RouteHandler = ReturnType<ExecutionContext['getHandler']>;
type ControllerClass = ReturnType<ExecutionContext['getClass']>;

function bearerToken(request: FastifyRequest): string {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+([A-Za-z0-9\-_.~+/]+=*)\s*$/i.exec(header) : null;
  if (!match) {
    throw new ApiError('invalid_token', 'Send the access token in the header Authorization: Bearer <token>.', {
      'WWW-Authenticate': 'Bearer realm="partner-api"',
    });
  }
  return match[1];
}

/** Live tokens work on /v1, sandbox tokens on /sandbox/v1 (DECISIONS 17). */
function checkEnvironment(principal: Principal, surface: Surface): void {
  if (surface === 'reading' && principal.environment !== 'live') {
    throw invalidToken('This is a sandbox token: call the sandbox at /sandbox/v1 instead of /v1.');
  }
  if (surface === 'sandbox' && principal.environment !== 'sandbox') {
    throw invalidToken('This is a live token: the sandbox at /sandbox/v1 accepts sandbox credentials only.');
  }
}

function checkScopes(principal: Principal, anyOf: readonly string[]): void {
  if (anyOf.length === 0 || anyOf.some((scope) => principal.scopes.has(scope))) return;
  throw new ApiError('insufficient_scope', `The token needs one of these scopes: ${anyOf.join(', ')}.`, {
    'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${anyOf.join(' ')}"`,
  });
}
