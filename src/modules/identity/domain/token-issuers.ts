/**
 * The two token issuers: the partner platform, and the children's service with its own
 * key pair so that a credential of one product cannot reach another (contract 4.3).
 */
export const TOKEN_ISSUERS = ['platform', 'kids'] as const;
export type TokenIssuer = (typeof TOKEN_ISSUERS)[number];

/** Access token lifetime, both issuers (contract section 8). */
export const ACCESS_TOKEN_LIFETIME_SECONDS = 600;

/** Accepted clock difference between issuer and verifier (DECISIONS 3). */
export const CLOCK_SKEW_SECONDS = 30;

export const issuerUrl = (publicBaseUrl: string, issuer: TokenIssuer) => `${publicBaseUrl}/${issuer}/v1`;

/** How long a verifier may cache a published key set (its `Cache-Control: max-age`). */
export const JWKS_MAX_AGE_SECONDS = 300;
