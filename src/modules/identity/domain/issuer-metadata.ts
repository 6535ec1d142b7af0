import { SCOPES, type Scope } from './scopes.js';
import { issuerUrl, type TokenIssuer } from './token-issuers.js';

/** RFC 8414 authorization server metadata of one issuer (DECISIONS 26). */
export interface IssuerMetadata {
  issuer: string;
  token_endpoint: string;
  jwks_uri: string;
  grant_types_supported: ['client_credentials'];
  token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'];
  scopes_supported: Scope[];
  /** Empty: the only grant is client credentials, which uses no authorization endpoint and so no response type. */
  response_types_supported: [];
}

/** The scopes each issuer puts in tokens: the kids issuer issues its one scope only. */
const ISSUER_SCOPES: Record<TokenIssuer, readonly Scope[]> = {
  platform: SCOPES,
  kids: ['kidsapp:engagement:read'],
};

export function issuerMetadata(publicBaseUrl: string, issuer: TokenIssuer): IssuerMetadata {
  const base = issuerUrl(publicBaseUrl, issuer);
  return {
    issuer: base,
    token_endpoint: `${base}/oauth2/token`,
    jwks_uri: `${base}/jwks`,
    grant_types_supported: ['client_credentials'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    scopes_supported: [...ISSUER_SCOPES[issuer]],
    response_types_supported: [],
  };
}

/**
 * RFC 8414 section 3: the metadata of an issuer with a path lives at the origin's
 * well-known URI followed by that path: `/.well-known/oauth-authorization-server/platform/v1`.
 */
export const METADATA_PATH_PREFIX = '.well-known/oauth-authorization-server';
