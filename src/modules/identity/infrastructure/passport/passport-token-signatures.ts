import { Injectable } from '@nestjs/common';
import type { DecodedToken } from '../../domain/access-token.js';
import type { Principal } from '../../domain/principal.js';
import { TokenSignatures } from '../../domain/token-signatures.js';
import type { TokenIssuer } from '../../domain/token-issuers.js';
import { KidsJwtStrategy } from './kids-jwt.strategy.js';
import { PlatformJwtStrategy } from './platform-jwt.strategy.js';

/** Each issuer's tokens through its passport-jwt strategy (ADR 0004). */
@Injectable()
export class PassportTokenSignatures extends TokenSignatures {
  constructor(
    private readonly platform: PlatformJwtStrategy,
    private readonly kids: KidsJwtStrategy,
  ) {
    super();
  }

  verify(issuer: TokenIssuer, token: string, decoded: DecodedToken): Promise<Principal> {
    return (issuer === 'kids' ? this.kids : this.platform).authenticateToken(token, decoded);
  }
}
