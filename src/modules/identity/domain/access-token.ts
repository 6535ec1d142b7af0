import { DomainError } from '../../../shared/errors/domain-error.js';
import { ENVIRONMENTS, type Environment } from '../../../shared/tenancy/tenant.js';
import type { Principal } from './principal.js';
import type { TokenIssuer } from './token-issuers.js';

/** A token that does not verify: 401 with the RFC 6750 challenge that says why. */
export const invalidToken = (description: string) =>
  new DomainError('invalid_token', description, { challenge: `Bearer error="invalid_token", error_description="${description.replace(/"/g, "'")}"` });

/** A compact JWS split into its header and claims, not yet verified. */
export interface DecodedToken {
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
}

/** Reads a token's header and claims without trusting them: enough to choose who verifies it. */
export function decodeToken(token: string): DecodedToken {
  const parts = token.split('.');
  const header = parts.length === 3 ? jsonObject(parts[0]) : undefined;
  const payload = parts.length === 3 ? jsonObject(parts[1]) : undefined;
  if (!header || !payload) throw invalidToken('The access token is not a well-formed JWT.');
  return { header, payload };
}

function jsonObject(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The caller proven by verified claims (DECISIONS 3); a token without them is refused. */
export function toPrincipal(claims: Record<string, unknown>, issuer: TokenIssuer): Principal {
  const { client_id: clientId, partner_id: partnerId, scope, exp, iat, env } = claims;
  const valid =
    typeof iat === 'number' &&
    typeof clientId === 'string' &&
    typeof partnerId === 'string' &&
    typeof scope === 'string' &&
    typeof exp === 'number' &&
    (ENVIRONMENTS as readonly unknown[]).includes(env);
  if (!valid) throw invalidToken('The access token lacks required claims.');
  return {
    clientId,
    partnerId,
    environment: env as Environment,
    scopes: new Set(scope.split(' ').filter(Boolean)),
    issuer,
    expiresAt: exp,
  };
}
