import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { JwtModule } from '@nestjs/jwt';
import { RateLimitingModule } from '../rate-limiting/index.js';
import { AccessTokenVerifier } from './application/access-token-verifier.js';
import { PartnerCredentialsService } from './application/partner-credentials.service.js';
import { SigningKeyService } from './application/signing-key.service.js';
import { TokenIssuerService } from './application/token-issuer.service.js';
import { CredentialRepository } from './domain/credential.repository.js';
import { SigningKeyRepository } from './domain/signing-key.repository.js';
import { TokenSignatures } from './domain/token-signatures.js';
import { AccessGuard } from './http/access.guard.js';
import { DiscoveryController } from './http/discovery.controller.js';
import { TokenRequestBudgets } from './http/token-request-budgets.js';
import { KidsTokenController, PlatformTokenController } from './http/token.controller.js';
import { UnauthenticatedRequests } from './http/unauthenticated-requests.js';
import { KidsJwtStrategy } from './infrastructure/passport/kids-jwt.strategy.js';
import { PassportTokenSignatures } from './infrastructure/passport/passport-token-signatures.js';
import { PlatformJwtStrategy } from './infrastructure/passport/platform-jwt.strategy.js';
import { TypeOrmCredentialRepository } from './infrastructure/typeorm-credential.repository.js';
import { TypeOrmSigningKeyRepository } from './infrastructure/typeorm-signing-key.repository.js';

/**
 * The platform's identity: partners, credentials, signing keys, the two token issuers and
 * the guard that every other module's routes pass through.
 */
@Module({
  imports: [JwtModule.register({}), RateLimitingModule],
  controllers: [PlatformTokenController, KidsTokenController, DiscoveryController],
  providers: [
    { provide: CredentialRepository, useClass: TypeOrmCredentialRepository },
    { provide: SigningKeyRepository, useClass: TypeOrmSigningKeyRepository },
    { provide: TokenSignatures, useClass: PassportTokenSignatures },
    PartnerCredentialsService,
    SigningKeyService,
    TokenIssuerService,
    PlatformJwtStrategy,
    KidsJwtStrategy,
    AccessTokenVerifier,
    TokenRequestBudgets,
    UnauthenticatedRequests,
    { provide: APP_GUARD, useClass: AccessGuard },
  ],
  exports: [PartnerCredentialsService, SigningKeyService],
})
export class IdentityModule {}
