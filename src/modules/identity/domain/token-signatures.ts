import type { DecodedToken } from './access-token.js';
import type { Principal } from './principal.js';
import type { TokenIssuer } from './token-issuers.js';

/**
 * Checks a token's signature and claims for the issuer that signed it (Passport and its
 * key sources, in infrastructure): what the verifier needs, without knowing how.
 */
export abstract class TokenSignatures {
  /** The principal the token proves, or an `invalid_token` DomainError; an outage passes through. */
  abstract verify(issuer: TokenIssuer, token: string, decoded: DecodedToken): Promise<Principal>;
}
