import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { AppConfig } from '../../../config/app-config.js';
import { ApiError } from '../../../shared/errors/api-error.js';
import { ENVIRONMENTS, type Environment } from '../../../shared/tenancy/tenant.js';
import type { Principal } from '../domain/principal.js';
import { CLOCK_SKEW_SECONDS, issuerUrl, TOKEN_ISSUERS, type TokenIssuer } from '../domain/token-issuers.js';
import { PartnerCredentialsService } from './partner-credentials.service.js';
import { SigningKeyService } from './signing-key.service.js';
import type { AccessTokenClaims } from './token-issuer.service.js';

/** Tokens verified once and then trusted until they expire; bounded so memory stays flat. */
const VERIFIED_TOKEN_CACHE_SIZE = 20_000;

export const invalidToken = (description: string) =>
  new ApiError('invalid_token', description, {
    'WWW-Authenticate': `Bearer error="invalid_token", error_description="${description.replace(/"/g, "'")}"`,
  });

/**
 * Verifies bearer tokens (DECISIONS 3): ES256 only, a published `kid` of an accepted
 * issuer, `iss`, `aud`, `exp`/`nbf` with 30 s of skew, and a credential not revoked.
 * A token seen before costs a map lookup, not an ECDSA verification.
 */
@Injectable()
export class AccessTokenVerifier {
  private readonly verified = new Map<string, Principal>();
  private readonly issuerByUrl: Map<string, TokenIssuer>;

  constructor(
    private readonly keys: SigningKeyService,
    private readonly credentials: PartnerCredentialsService,
    private readonly jwt: JwtService,
    @Inject(AppConfig) private readonly config: AppConfig,
  ) {
    this.issuerByUrl = new Map(TOKEN_ISSUERS.map((i) => [issuerUrl(config.publicBaseUrl, i), i]));
  }

  async verify(token: string, accepted: readonly TokenIssuer[]): Promise<Principal> {
    const principal = this.verified.get(token) ?? (await this.verifySignature(token));
    if (principal.expiresAt + CLOCK_SKEW_SECONDS <= Date.now() / 1000) {
      this.verified.delete(token);
      throw invalidToken('The access token has expired.');
    }
    if (!accepted.includes(principal.issuer)) throw invalidToken('This service does not accept tokens of that issuer.');
    if (!(await this.credentials.isActive(principal.clientId))) throw invalidToken('The credential of this token was revoked.');
    return principal;
  }

  private async verifySignature(token: string): Promise<Principal> {
    const decoded = this.decode(token);
    const issuer = this.issuerByUrl.get(String(decoded.payload.iss));
    const kid = decoded.header.kid;
    if (decoded.header.alg !== 'ES256') throw invalidToken('The access token must be signed with ES256.');
    if (!issuer || typeof kid !== 'string') throw invalidToken('The access token was not issued by this platform.');
    const publicKey = await this.keys.verificationKey(issuer, kid);
    if (!publicKey) throw invalidToken('The access token is signed by an unknown key.');
    let claims: AccessTokenClaims;
    try {
      claims = await this.jwt.verifyAsync<AccessTokenClaims>(token, {
        // @nestjs/jwt types the key as string | Buffer but hands it to jsonwebtoken, which
        // takes a KeyObject and then does not parse a PEM on every verification (that parse cost more than the ECDSA check).
        publicKey: publicKey as unknown as Buffer,
        algorithms: ['ES256'],
        issuer: issuerUrl(this.config.publicBaseUrl, issuer),
        audience: this.config.publicBaseUrl,
        clockTolerance: CLOCK_SKEW_SECONDS,
      });
    } catch (error) {
      const expired = (error as Error).name === 'TokenExpiredError';
      throw invalidToken(expired ? 'The access token has expired.' : 'The access token signature or claims are invalid.');
    }
    const principal = toPrincipal(claims, issuer);
    this.remember(token, principal);
    return principal;
  }

  private decode(token: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
    let decoded: unknown;
    try {
      decoded = this.jwt.decode(token, { complete: true });
    } catch {
      decoded = null;
    }
    const parts = decoded as { header?: unknown; payload?: unknown } | null;
    if (!parts || typeof parts.header !== 'object' || typeof parts.payload !== 'object' || !parts.payload) {
      throw invalidToken('The access token is not a well-formed JWT.');
    }
    return parts as { header: Record<string, unknown>; payload: Record<string, unknown> };
  }

  private remember(token: string, principal: Principal): void {
    if (this.verified.size >= VERIFIED_TOKEN_CACHE_SIZE) {
      // Evict the oldest entry (Map keeps insertion order).
      this.verified.delete(this.verified.keys().next().value as string);
    }
    this.verified.set(token, principal);
  }
}

function toPrincipal(claims: AccessTokenClaims, issuer: TokenIssuer): Principal {
  const valid =
    typeof claims.client_id === 'string' &&
    typeof claims.partner_id === 'string' &&
    typeof claims.scope === 'string' &&
    typeof claims.exp === 'number' &&
    (ENVIRONMENTS as readonly string[]).includes(claims.env);
  if (!valid) throw invalidToken('The access token lacks required claims.');
  return {
    clientId: claims.client_id,
    partnerId: claims.partner_id,
    environment: claims.env as Environment,
    scopes: new Set(claims.scope.split(' ').filter(Boolean)),
    issuer,
    expiresAt: claims.exp,
  };
}
