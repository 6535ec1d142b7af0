import { applyDecorators, createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiExtension, ApiForbiddenResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { ErrorBodyDto } from '../../../shared/http/error-body.dto.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import type { Principal } from '../domain/principal.js';
import type { Scope } from '../domain/scopes.js';

export const ACCESS_RULE = 'access:rule';

/** What a route requires. Every route declares one; a route without it is refused. */
export type AccessRule = { public: true } | { public: false; anyOfScopes: readonly Scope[] };

/** No token needed (token endpoints, key sets, documentation, health). */
export const Public = () => SetMetadata(ACCESS_RULE, { public: true } satisfies AccessRule);

/**
 * A valid token holding at least one of `scopes` (none listed: any valid token).
 * Also documents the requirement in the OpenAPI document.
 */
export const RequireScopes = (...scopes: Scope[]) =>
  applyDecorators(
    SetMetadata(ACCESS_RULE, { public: false, anyOfScopes: scopes } satisfies AccessRule),
    ApiExtension('x-required-scopes', { anyOf: scopes }),
    ApiUnauthorizedResponse({ description: 'invalid_token: missing, malformed, expired or revoked token', type: ErrorBodyDto }),
    ...(scopes.length ? [ApiForbiddenResponse({ description: `insufficient_scope: the token needs one of: ${scopes.join(', ')}`, type: ErrorBodyDto })] : []),
  );

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
}

/** The verified caller of a protected route. */
export const CurrentPrincipal = createParamDecorator((_: unknown, context: ExecutionContext): Principal => {
  const principal = context.switchToHttp().getRequest<FastifyRequest>().principal;
  if (!principal) throw new Error('CurrentPrincipal used on a route without RequireScopes');
  return principal;
});

/** Whose data the request may touch: the token's partner, in the environment of the mount. */
export const CurrentTenant = createParamDecorator((_: unknown, context: ExecutionContext): Tenant => {
  const principal = context.switchToHttp().getRequest<FastifyRequest>().principal;
  if (!principal) throw new Error('CurrentTenant used on a route without RequireScopes');
  return { partnerId: principal.partnerId, environment: principal.environment };
});
