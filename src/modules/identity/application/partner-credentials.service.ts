import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { ServerSecrets } from '../../../shared/crypto/server-secrets.js';
import type { Environment } from '../../../shared/tenancy/tenant.js';
import { CredentialRepository, type CredentialRecord, type CredentialSummary, type PartnerSummary } from '../domain/credential.repository.js';
import { DEFAULT_SCOPES, type Scope } from '../domain/scopes.js';

export interface IssuedCredential {
  partner_id: string;
  client_id: string;
  /** Shown once; only its keyed hash is stored. */
  client_secret: string;
  scopes: Scope[];
  environment: Environment;
}

export class UnknownPartnerError extends Error {}

/** A credential's last use is recorded to the minute. */
const LAST_USE_RESOLUTION_MS = 60_000;

/** Partners and their credentials (DECISIONS 2), and the revocation status that token verification consults. */
@Injectable()
export class PartnerCredentialsService {
  private readonly usesRecordedAt = new Map<string, number>();

  constructor(
    private readonly credentials: CredentialRepository,
    private readonly secrets: ServerSecrets,
  ) {}

  async createPartner(name: string, scopes: Scope[] = [...DEFAULT_SCOPES], environment: Environment = 'live'): Promise<IssuedCredential> {
    const partnerId = await this.credentials.createPartner(name);
    return this.createCredential(partnerId, scopes, environment);
  }

  partnerExists(partnerId: string): Promise<boolean> {
    return this.credentials.partnerExists(partnerId);
  }

  async createCredential(partnerId: string, scopes: Scope[] = [...DEFAULT_SCOPES], environment: Environment = 'live'): Promise<IssuedCredential> {
    if (!(await this.credentials.partnerExists(partnerId))) throw new UnknownPartnerError(`No partner ${partnerId}`);
    const prefix = environment === 'live' ? 'live' : 'sbx';
    const clientId = `${prefix}_${randomBytes(12).toString('hex')}`;
    // 256 bits of randomness (DECISIONS 2); the prefix lets secret scanners recognise it.
    const clientSecret = `sk_${prefix}_${randomBytes(32).toString('base64url')}`;
    await this.credentials.insert(
      { clientId, partnerId, secretHash: this.secrets.hashSecret(clientSecret), scopes, environment },
      this.secrets.writingFingerprint,
    );
    return { partner_id: partnerId, client_id: clientId, client_secret: clientSecret, scopes, environment };
  }

  revoke(clientId: string): Promise<boolean> {
    return this.credentials.revoke(clientId, new Date());
  }

  /** Offboarding: every credential of the partner stops on every replica at commit (ADR 0113). */
  revokeAllOf(partnerId: string): Promise<string[]> {
    return this.credentials.revokeAllOf(partnerId, new Date());
  }

  /**
   * The credential, if the id exists, is not revoked and the secret matches. A secret
   * hashed under the root secret being rotated away from is hashed again under the writing
   * one now, the only moment its plaintext is at hand (ADR 0003).
   */
  async authenticate(clientId: string, clientSecret: string): Promise<CredentialRecord | null> {
    const credential = await this.credentials.findByClientId(clientId);
    if (!credential || credential.revokedAt) return null;
    const match = this.secrets.secretMatch(clientSecret, credential.secretHash);
    if (match === 'other') await this.credentials.upgradeSecretHash(clientId, this.secrets.hashSecret(clientSecret), this.secrets.writingFingerprint);
    if (match) await this.recordUse(clientId);
    return match ? credential : null;
  }

  /**
   * Last use, for `credential:list`: at token issuance only (never on the requests a token
   * then makes), and at most once a minute per credential from this process, whose
   * statement also skips a row another replica wrote within the minute (ADR 0155).
   */
  private async recordUse(clientId: string): Promise<void> {
    const now = Date.now();
    if (now - (this.usesRecordedAt.get(clientId) ?? -Infinity) < LAST_USE_RESOLUTION_MS) return;
    this.usesRecordedAt.set(clientId, now);
    await this.credentials.recordUse(clientId);
  }

  /** Every credential of one partner, or of all, with when each last obtained a token. */
  listCredentials(partnerId?: string): Promise<CredentialSummary[]> {
    return this.credentials.list({ partnerId });
  }

  listPartners(): Promise<PartnerSummary[]> {
    return this.credentials.listPartners();
  }

  /** The unrevoked credentials still hashed under another root secret than the writing one (`secret:status`). */
  hashedUnderOtherSecret(): Promise<CredentialSummary[]> {
    return this.credentials.list({ hashedWithOtherThan: this.secrets.writingFingerprint });
  }

  /**
   * Credentials made before the database recorded its root secret were hashed with that
   * secret: marked so at the first start that records it (ADR 0003).
   */
  markUnmarkedSecretHashes(fingerprint: string): Promise<void> {
    return this.credentials.markUnmarkedSecretHashes(fingerprint);
  }

  /** Credentials still hashed under another root secret than the writing one: each is upgraded at its next use. */
  awaitingSecretUpgrade(): Promise<number> {
    return this.credentials.countHashedWithOtherThan(this.secrets.writingFingerprint);
  }

  isActive(clientId: string): Promise<boolean> {
    return this.credentials.isActive(clientId);
  }
}
