import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../../../../config/app-config.js';
import { SigningKeyService } from '../../application/signing-key.service.js';
import { issuerJwtStrategy } from './issuer-jwt.strategy.js';

/**
 * Tokens of the children's service's own issuer. Only the kids surface accepts them, and
 * it is their issuer too, so its keys are always the ones in the database it signs with.
 */
@Injectable()
export class KidsJwtStrategy extends issuerJwtStrategy('kids') {
  constructor(keys: SigningKeyService, @Inject(AppConfig) config: AppConfig) {
    super((kid) => keys.verificationKey('kids', kid), config);
  }
}
