import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../../../../config/app-config.js';
import { SigningKeyService } from '../../application/signing-key.service.js';
import { RemoteKeySet } from '../remote-key-set.js';
import { issuerJwtStrategy, type VerificationKeys } from './issuer-jwt.strategy.js';

/**
 * Platform tokens. Keys come from PLATFORM_JWKS_URL when this process runs apart from the
 * platform (DECISIONS 3, last bullets), otherwise from the database the platform signs with.
 */
@Injectable()
export class PlatformJwtStrategy extends issuerJwtStrategy('platform') {
  constructor(keys: SigningKeyService, @Inject(AppConfig) config: AppConfig) {
    super(platformKeys(keys, config), config);
  }
}

function platformKeys(keys: SigningKeyService, config: AppConfig): VerificationKeys {
  if (!config.platformJwksUrl) return (kid) => keys.verificationKey('platform', kid);
  const remote = new RemoteKeySet(config.platformJwksUrl);
  return (kid) => remote.key(kid);
}
