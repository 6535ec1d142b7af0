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
  /** Rewrites every key's sealed private half with `reseal`; returns how many. */
  abstract resealAll(reseal: (sealed: string) => string): Promise<number>;
  /** Any key's sealed private half, to learn which root secret sealed the stored keys. */
  abstract anySealedKey(): Promise<string | undefined>;
  /**
   * Runs `work` while holding a lock on the issuer's key set, so replicas starting together
   * create one first key, not one each.
   */
  abstract withIssuerLock<T>(issuer: TokenIssuer, work: () => Promise<T>): Promise<T>;
}
