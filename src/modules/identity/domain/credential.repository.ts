import type { Environment } from '../../../shared/tenancy/tenant.js';
import type { Scope } from './scopes.js';

export interface CredentialRecord {
  clientId: string;
  partnerId: string;
  secretHash: Buffer;
  scopes: Scope[];
  environment: Environment;
  revokedAt: Date | null;
}

/** A credential as operators list it (`credential:list`, `secret:status`): never its hash. */
export interface CredentialSummary {
  clientId: string;
  partnerId: string;
  environment: Environment;
  scopes: Scope[];
  createdAt: Date;
  revokedAt: Date | null;
  /** When it last obtained a token, to the minute; null when never since it was recorded. */
  lastUsedAt: Date | null;
}

export interface PartnerSummary {
  id: string;
  name: string;
  createdAt: Date;
  activeCredentials: number;
  revokedCredentials: number;
}

/** Partners and their OAuth clients (DECISIONS 2). */
export abstract class CredentialRepository {
  abstract createPartner(name: string): Promise<string>;
  abstract partnerExists(partnerId: string): Promise<boolean>;
  /** `secretFingerprint` names the root secret whose pepper made `secretHash` (ADR 0003). */
  abstract insert(credential: Omit<CredentialRecord, 'revokedAt'>, secretFingerprint: string): Promise<void>;
  /** Replaces a hash made with another root secret's pepper by one made with the writing secret's. */
  abstract upgradeSecretHash(clientId: string, secretHash: Buffer, secretFingerprint: string): Promise<void>;
  /** Marks the hashes stored before fingerprints were kept as made with `fingerprint`'s secret. */
  abstract markUnmarkedSecretHashes(fingerprint: string): Promise<void>;
  /** Unrevoked credentials whose hash was made with another root secret than `fingerprint`. */
  abstract countHashedWithOtherThan(fingerprint: string): Promise<number>;
  /** Every credential, oldest first: of one partner, or (`hashedWithOtherThan`) the unrevoked ones hashed under another root secret. */
  abstract list(filter: { partnerId?: string; hashedWithOtherThan?: string }): Promise<CredentialSummary[]>;
  abstract listPartners(): Promise<PartnerSummary[]>;
  /** Records that the credential obtained a token now, unless it was recorded less than a minute ago. */
  abstract recordUse(clientId: string): Promise<void>;
  abstract findByClientId(clientId: string): Promise<CredentialRecord | null>;
  /**
   * Whether the credential exists and is not revoked: read on every authenticated request,
   * so it may answer from memory, provided a revocation reaches every process at once.
   */
  abstract isActive(clientId: string): Promise<boolean>;
  /** Returns false when no such credential exists; every process sees the revocation at commit. */
  abstract revoke(clientId: string, at: Date): Promise<boolean>;
  /** Revokes every credential of the partner, both environments, as `revoke` does one; their client ids. */
  abstract revokeAllOf(partnerId: string, at: Date): Promise<string[]>;
}
