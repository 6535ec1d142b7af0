import type { TokenIssuer } from './token-issuers.js';

export interface StoredSigningKey {
  kid: string;
  issuer: TokenIssuer;
  publicJwk: Record<string, unknown>;
  sealedPrivateKey: string;
  signsFrom: Date;
}

export abstract class SigningKeyRepository {
  abstract list(issuer: TokenIssuer): Promise<StoredSigningKey[]>;
  abstract insert(key: StoredSigningKey): Promise<void>;
  /**
   * Runs `work` while holding a lock on the issuer's key set, so replicas starting together
   * create one first key, not one each.
   */
  abstract withIssuerLock<T>(issuer: TokenIssuer, work: () => Promise<T>): Promise<T>;
}
