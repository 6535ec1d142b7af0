import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { randomUUID } from 'node:crypto';
import { AppConfig } from '../../../config/app-config.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { ClientCredentials } from '../domain/client-authentication.js';
import type { CredentialRecord } from '../domain/credential.repository.js';
import { ACCESS_TOKEN_LIFETIME_SECONDS, issuerUrl, type TokenIssuer } from '../domain/token-issuers.js';
import { PartnerCredentialsService } from './partner-credentials.service.js';
import { SigningKeyService } from './signing-key.service.js';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  /** What the token grants (RFC 6749 5.1: the client asked for no scope, so it learns them here). */
  scope: string;
}

/** The claims of DECISIONS 3 (RFC 9068 access token). */
export interface AccessTokenClaims {
  iss: string;
  sub: string;
  aud: string;
  client_id: string;
  partner_id: string;
  env: string;
  scope: string;
  iat: number;
  exp: number;
  jti: string;
}

export const invalidClient = () =>
  new DomainError('invalid_client', 'Client authentication failed: unknown client, wrong secret or revoked credential.', {
    challenge: 'Basic realm="partner-platform", charset="UTF-8"',
  });

@Injectable()
export class TokenIssuerService {
  private readonly audience: string;

  constructor(
    private readonly credentials: PartnerCredentialsService,
    private readonly keys: SigningKeyService,
    private readonly jwt: JwtService,
    @Inject(AppConfig) private readonly config: AppConfig,
  ) {
    this.audience = config.publicBaseUrl;
  }

  get tokenAudience(): string {
    return this.audience;
  }

  /** Authenticates the client, then signs a token carrying the scopes it holds. */
  async issue(client: ClientCredentials, issuer: TokenIssuer, scopes?: (held: CredentialRecord) => string[]): Promise<TokenResponse> {
    const credential = await this.credentials.authenticate(client.clientId, client.clientSecret);
    if (!credential) throw invalidClient();
    const granted = scopes ? scopes(credential) : credential.scopes;
    const { kid, privateKey } = await this.keys.currentSigningKey(issuer);
    const now = Math.floor(Date.now() / 1000);
    const claims: AccessTokenClaims = {
      iss: issuerUrl(this.config.publicBaseUrl, issuer),
      sub: credential.clientId,
      aud: this.audience,
      client_id: credential.clientId,
      partner_id: credential.partnerId,
      env: credential.environment,
      scope: granted.join(' '),
      iat: now,
      exp: now + ACCESS_TOKEN_LIFETIME_SECONDS,
      jti: randomUUID(),
    };
    // @nestjs/jwt types the key as string | Buffer; jsonwebtoken takes the KeyObject as it is,
    // which spares parsing a PEM at every token.
    const accessToken = this.jwt.sign(claims, {
      privateKey: privateKey as unknown as Buffer,
      algorithm: 'ES256',
      header: { alg: 'ES256', typ: 'at+jwt', kid },
    });
    return { access_token: accessToken, token_type: 'Bearer', expires_in: ACCESS_TOKEN_LIFETIME_SECONDS, scope: claims.scope };
  }
}
