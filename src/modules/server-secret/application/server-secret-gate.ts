import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { ConfigError } from '../../../config/app-config.js';
import { ServerSecrets } from '../../../shared/crypto/server-secrets.js';
import { PartnerCredentialsService, SigningKeyService } from '../../identity/index.js';
import { SecretFingerprintRepository } from '../domain/secret-fingerprint.repository.js';

export const SECRET_MISMATCH =
  'SERVER_SECRET is not the secret this database was set up with: set the one that goes with it (after a restore, the secret of the backup), or, during a rotation, name the old one in SERVER_SECRET_PREVIOUS (docs/operations.md)';

/**
 * Checks at start that the database was set up with this process's SERVER_SECRET (or, during
 * a rotation, SERVER_SECRET_PREVIOUS), and settles which of the two seals and hashes new
 * material: the one the database records (ADR 0003). A mismatch stops the process in one
 * line naming SERVER_SECRET, instead of a service that answers every credential 401 and
 * every new one 500. Runs at module init, before anything seals (signing keys are created
 * at bootstrap), and follows a rotation committed on any replica.
 */
@Injectable()
export class ServerSecretGate implements OnModuleInit {
  private readonly logger = new Logger('ServerSecret');

  constructor(
    private readonly secrets: ServerSecrets,
    private readonly fingerprints: SecretFingerprintRepository,
    private readonly signingKeys: SigningKeyService,
    private readonly credentials: PartnerCredentialsService,
  ) {}

  async onModuleInit(): Promise<void> {
    const recorded = (await this.fingerprints.read()) ?? (await this.recordFirst());
    if (!this.secrets.writeWith(recorded)) throw new ConfigError(SECRET_MISMATCH);
    await this.credentials.markUnmarkedSecretHashes(recorded);
    await this.fingerprints.watch((fingerprint) => void this.follow(fingerprint));
  }

  /**
   * A database from before fingerprints were kept: its signing keys tell which secret
   * sealed it. A new database is recorded with SERVER_SECRET.
   */
  private async recordFirst(): Promise<string> {
    const sealed = await this.signingKeys.anySealedKey();
    const { current, previous } = this.secrets.fingerprints;
    const owner = sealed === undefined ? current : [current, previous].find((fingerprint) => fingerprint && this.secrets.sealedWith(sealed, fingerprint));
    if (!owner) throw new ConfigError(SECRET_MISMATCH);
    return this.fingerprints.recordIfAbsent(owner);
  }

  /** A rotation committed somewhere: write with the new secret, which this process knows if it was deployed for it. */
  private async follow(fingerprint: string): Promise<void> {
    const recorded = fingerprint || (await this.fingerprints.read().catch(() => undefined));
    if (!recorded || this.secrets.writeWith(recorded)) return;
    this.logger.error({}, `${SECRET_MISMATCH} (the database moved to another secret while this process ran)`);
  }
}
