import { Injectable } from '@nestjs/common';
import { ConfigError } from '../../../config/app-config.js';
import { ServerSecrets } from '../../../shared/crypto/server-secrets.js';
import { UnitOfWork } from '../../../shared/persistence/unit-of-work.js';
import { PartnerCredentialsService, SigningKeyService } from '../../identity/index.js';
import { WebhookEndpointsService } from '../../webhooks/index.js';
import { SecretFingerprintRepository } from '../domain/secret-fingerprint.repository.js';
import { SECRET_MISMATCH } from './server-secret-gate.js';

export interface RotationResult {
  signing_keys_resealed: number;
  webhook_secrets_resealed: number;
  /** Credentials whose secret is still hashed under SERVER_SECRET_PREVIOUS: each upgrades at its next token request. */
  credentials_awaiting_upgrade: number;
}

/**
 * `secret:rotate` (ADR 0003): once every replica runs with SERVER_SECRET (new) and
 * SERVER_SECRET_PREVIOUS (old), moves the database to the new secret in one transaction:
 * every sealed private key and webhook secret re-sealed, the new fingerprint recorded, and
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
  ) {}

  async rotate(): Promise<RotationResult> {
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
      };
      await this.fingerprints.replace(current);
      return counts;
    });
    return { ...resealed, credentials_awaiting_upgrade: await this.credentials.awaitingSecretUpgrade() };
  }
}
