import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../../../../config/app-config.js';
import { SigningKeyService } from '../../application/signing-key.service.js';
import { platformJwksKeys } from './platform-jwks-keys.js';
import { issuerJwtStrategy } from './issuer-jwt.strategy.js';

/**
 * Platform tokens. Keys come from PLATFORM_JWKS_URL when this process runs apart from the
 * platform (DECISIONS 3, last bullets), otherwise from the database the platform signs with.
 */
@Injectable()
export class PlatformJwtStrategy extends issuerJwtStrategy('platform') {
  constructor(keys: SigningKeyService, @Inject(AppConfig) config: AppConfig) {
    super(config.platformJwksUrl ? platformJwksKeys(config.platformJwksUrl) : (kid) => keys.verificationKey('platform', kid), config);
  }
}
