import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config.js';
import type { Principal } from '../domain/principal.js';
import { CLOCK_SKEW_SECONDS, issuerUrl, type TokenIssuer } from '../domain/token-issuers.js';
import { decodeToken, invalidToken } from '../domain/access-token.js';
import { TokenSignatures } from '../domain/token-signatures.js';
import { PartnerCredentialsService } from './partner-credentials.service.js';

/** Tokens verified once and then trusted until they expire; bounded so memory stays flat. */
const VERIFIED_TOKEN_CACHE_SIZE = 20_000;

/**
 * A verified token and what it proved, kept under its signature: a map keyed by the whole
 * token (about a kilobyte) hashes all of it on every request, the signature is 86
 * characters, and the whole token is then compared, not trusted to the signature.
 */
interface VerifiedToken {
  token: string;
  principal: Principal;
}

const signatureOf = (token: string) => token.slice(token.lastIndexOf('.') + 1);

/**
 * Verifies bearer tokens (DECISIONS 3). A token seen before costs a map lookup; only a new
 * one goes to the signature checks (Passport) of the issuer it names, which checks the
 * signature and claims. Expiry, the issuers the surface accepts and revocation are checked
 * on every request, cached or not.
 */
@Injectable()
export class AccessTokenVerifier {
  private readonly verified = new Map<string, VerifiedToken>();
  private readonly kidsIssuerUrl: string;

  constructor(
    private readonly signatures: TokenSignatures,
    private readonly credentials: PartnerCredentialsService,
    @Inject(AppConfig) config: AppConfig,
  ) {
    this.kidsIssuerUrl = issuerUrl(config.publicBaseUrl, 'kids');
  }

  async verify(token: string, accepted: readonly TokenIssuer[]): Promise<Principal> {
    const signature = signatureOf(token);
    const known = this.verified.get(signature);
    const principal = known?.token === token ? known.principal : await this.verifySignature(token);
    if (principal.expiresAt + CLOCK_SKEW_SECONDS <= Date.now() / 1000) {
      this.verified.delete(signature);
      throw invalidToken('The access token has expired.');
    }
    if (!accepted.includes(principal.issuer)) throw invalidToken('This service does not accept tokens of that issuer.');
    if (!(await this.credentials.isActive(principal.clientId))) throw invalidToken('The credential of this token was revoked.');
    return principal;
  }

  private async verifySignature(token: string): Promise<Principal> {
    const decoded = decodeToken(token);
    // Any issuer but the kids one goes to the platform's checks, which refuse what it did not issue.
    const principal = await this.signatures.verify(decoded.payload.iss === this.kidsIssuerUrl ? 'kids' : 'platform', token, decoded);
    this.remember(token, principal);
    return principal;
  }

  private remember(token: string, principal: Principal): void {
    if (this.verified.size >= VERIFIED_TOKEN_CACHE_SIZE) {
      // Evict the oldest entry (Map keeps insertion order).
      this.verified.delete(this.verified.keys().next().value as string);
    }
    this.verified.set(signatureOf(token), { token, principal });
  }
}
