import { Injectable } from '@nestjs/common';
import { ConfigError } from '../../../config/app-config.js';
import { ServerSecrets } from '../../../shared/crypto/server-secrets.js';
import { UnitOfWork } from '../../../shared/persistence/unit-of-work.js';
import { IdempotencyService } from '../../idempotency/index.js';
import { PartnerCredentialsService, SigningKeyService, TOKEN_ISSUERS, type TokenIssuer } from '../../identity/index.js';
import { WebhookEndpointsService } from '../../webhooks/index.js';
import { SecretFingerprintRepository } from '../domain/secret-fingerprint.repository.js';
import { SECRET_MISMATCH } from './server-secret-gate.js';

export interface RotationResult {
  signing_keys_resealed: number;
  webhook_secrets_resealed: number;
  /** Stored answers of keyed writes that carry a secret (ADR 0144). */
  idempotent_answers_resealed: number;
  /** Credentials whose secret is still hashed under SERVER_SECRET_PREVIOUS: each upgrades at its next token request. */
  credentials_awaiting_upgrade: number;
  /** After a leak only: what was replaced because the old secret unseals it in any older copy of the database. */
  after_leak?: AfterLeakRotation;
}

/** What `secret:rotate --after-leak` replaced (ADR 0003). */
export interface AfterLeakRotation {
  /** The new key of each issuer; tokens of the older keys are refused from `retires_older_at`. */
  signing_keys: { issuer: TokenIssuer; kid: string; signs_from: string; retires_older_at: string }[];
  /** Every endpoint's new secret; the replaced one signs beside it until `previous_secret_expires_at`. Tell these partners to call rotate-secret before then. */
  webhook_endpoints: { partner_id: string; environment: string; endpoint_id: string; previous_secret_expires_at: string }[];
}

/**
 * `secret:rotate` (ADR 0003): once every replica runs with SERVER_SECRET (new) and
 * SERVER_SECRET_PREVIOUS (old), moves the database to the new secret in one transaction:
 * every sealed private key, webhook secret and stored answer carrying one re-sealed, the new fingerprint recorded, and
 * every replica told to write with it at commit. Run again, it reports how many
 * credentials still wait for their upgrade.
 */
@Injectable()
export class SecretRotationService {
  constructor(
    private readonly secrets: ServerSecrets,
    private readonly fingerprints: SecretFingerprintRepository,
    private readonly unitOfWork: UnitOfWork,
    private readonly signingKeys: SigningKeyService,
    private readonly webhookEndpoints: WebhookEndpointsService,
    private readonly credentials: PartnerCredentialsService,
    private readonly idempotency: IdempotencyService,
  ) {}

  /**
   * `afterLeak` also replaces what a copy of the database and the old secret would let
   * anyone use: every signing key (new kids) and every webhook endpoint secret, in the same
   * transaction (ADR 0003).
   */
  async rotate({ afterLeak = false }: { afterLeak?: boolean } = {}): Promise<RotationResult> {
    const { current, previous } = this.secrets.fingerprints;
    if (!previous) throw new ConfigError('secret:rotate needs SERVER_SECRET_PREVIOUS: the secret being replaced, beside the new SERVER_SECRET');
    const resealed = await this.unitOfWork.run(async () => {
      const recorded = await this.fingerprints.lock();
      if (recorded !== current && recorded !== previous) throw new ConfigError(SECRET_MISMATCH);
      this.secrets.writeWith(current);
      const reseal = (sealed: string) => this.secrets.seal(this.secrets.unseal(sealed));
      const counts = {
        signing_keys_resealed: await this.signingKeys.resealAll(reseal),
        webhook_secrets_resealed: await this.webhookEndpoints.resealAllSecrets(reseal),
        idempotent_answers_resealed: await this.idempotency.resealAnswers(reseal),
      };
      await this.fingerprints.replace(current);
      return { ...counts, ...(afterLeak ? { after_leak: await this.replaceLeakedMaterial() } : {}) };
    });
    const { after_leak, ...counts } = resealed;
    return { ...counts, credentials_awaiting_upgrade: await this.credentials.awaitingSecretUpgrade(), ...(after_leak ? { after_leak } : {}) };
  }

  private async replaceLeakedMaterial(): Promise<AfterLeakRotation> {
    const signingKeys: AfterLeakRotation['signing_keys'] = [];
    for (const issuer of TOKEN_ISSUERS) signingKeys.push({ issuer, ...(await this.signingKeys.rotate(issuer)) });
    const endpoints = await this.webhookEndpoints.rotateAllSecrets();
    return {
      signing_keys: signingKeys,
      webhook_endpoints: endpoints.map((rotation) => ({
        partner_id: rotation.partnerId,
        environment: rotation.environment,
        endpoint_id: rotation.endpointId,
        previous_secret_expires_at: rotation.previousSecretExpiresAt.toISOString(),
      })),
    };
  }
}
