import type { OpenAPIObject } from '@nestjs/swagger';
import { operationsOf } from './operations.js';

/** A token issuer as the document presents it: an OAuth 2.0 client-credentials scheme. */
export interface DocumentedIssuer {
  /** The security scheme's name. */
  scheme: string;
  description: string;
  /** The token endpoint's path, e.g. `/platform/v1/oauth2/token`. */
  tokenPath: string;
  scopes: Readonly<Record<string, string>>;
  /** Whether a path accepts this issuer's tokens. */
  serves: (path: string) => boolean;
}

export const CLIENT_BASIC = 'clientBasic';

/**
 * Security from the access rules: a protected operation accepts a token of any issuer that
 * serves its path holding any one of its scopes that issuer grants (one requirement per
 * scope, since OpenAPI requires every scope listed in a single requirement); a token
 * endpoint authenticates the client with HTTP Basic; every other operation is public
 * (`security: []`).
 * tokenUrl is relative to the document's server, so Swagger UI posts to the origin it was
 * loaded from whatever PUBLIC_BASE_URL says.
 */
export function applySecurity(document: OpenAPIObject, issuers: readonly DocumentedIssuer[]): void {
  const schemes = Object.fromEntries(
    issuers.map((issuer) => [
      issuer.scheme,
      { type: 'oauth2' as const, description: issuer.description, flows: { clientCredentials: { tokenUrl: issuer.tokenPath, scopes: { ...issuer.scopes } } } },
    ]),
  );
  document.components = {
    ...document.components,
    securitySchemes: {
      ...schemes,
      [CLIENT_BASIC]: { type: 'http', scheme: 'basic', description: 'client_id and client_secret of a credential, as HTTP Basic (RFC 6749 2.3.1).' },
    },
  };
  const tokenPaths = new Set(issuers.map((issuer) => issuer.tokenPath));
  for (const { path, operation } of operationsOf(document)) {
    const rule = operation['x-required-scopes'];
    if (rule) {
      operation.security = issuers
        .filter((issuer) => issuer.serves(path))
        .flatMap(({ scheme, scopes }) =>
          rule.anyOf.length ? rule.anyOf.filter((scope) => scope in scopes).map((scope) => ({ [scheme]: [scope] })) : [{ [scheme]: [] }],
        );
    } else {
      operation.security = tokenPaths.has(path) ? [{ [CLIENT_BASIC]: [] }] : [];
    }
  }
}
