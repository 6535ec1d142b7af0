import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { ConfigError } from '../../../config/app-config.js';
import { ServerSecrets } from '../../../shared/crypto/server-secrets.js';
import { ReadinessChecks } from '../../../shared/readiness-checks.js';
import { PartnerCredentialsService, SigningKeyService } from '../../identity/index.js';
import { SecretFingerprintRepository } from '../domain/secret-fingerprint.repository.js';

export const SECRET_MISMATCH =
  'SERVER_SECRET is not the secret this database was set up with: set the one that goes with it (after a restore, the secret of the backup), or, during a rotation, name the old one in SERVER_SECRET_PREVIOUS (docs/operations.md)';

/** How often a running replica reads the recorded fingerprint again, besides every readiness probe and rotation NOTIFY. */
export const FINGERPRINT_RECHECK_SECONDS = 30;

/**
 * Checks at start that the database was set up with this process's SERVER_SECRET (or, during
 * a rotation, SERVER_SECRET_PREVIOUS), and settles which of the two seals and hashes new
 * material: the one the database records (ADR 0003). A mismatch stops the process in one
 * line naming SERVER_SECRET, instead of a service that answers every credential 401 and
 * every new one 500. Runs at module init, before anything seals (signing keys are created
 * at bootstrap), and follows a rotation committed on any replica.
 *
 * While running, the recorded fingerprint is read again on a rotation's NOTIFY, at every
 * readiness probe and at least every 30 s (ADR 0003): a database moved to a secret this
 * replica does not know makes it not ready, with the reason, logged once per change.
 */
@Injectable()
export class ServerSecretGate implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('ServerSecret');
  /** Why this replica cannot serve the database as it is recorded now, if it cannot. */
  private mismatch?: string;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly secrets: ServerSecrets,
    private readonly fingerprints: SecretFingerprintRepository,
    private readonly signingKeys: SigningKeyService,
    private readonly credentials: PartnerCredentialsService,
    private readonly readiness: ReadinessChecks,
  ) {}

  async onModuleInit(): Promise<void> {
    const recorded = (await this.fingerprints.read()) ?? (await this.recordFirst());
    if (!this.secrets.writeWith(recorded)) throw new ConfigError(SECRET_MISMATCH);
    await this.credentials.markUnmarkedSecretHashes(recorded);
    await this.fingerprints.watch((fingerprint) => void this.recheck(fingerprint));
    this.readiness.add(() => this.recheck());
    this.timer = setInterval(() => void this.recheck(), FINGERPRINT_RECHECK_SECONDS * 1000).unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
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

  /**
   * Follows the recorded fingerprint (`notified` by a rotation, else read): writes with its
   * secret when this process knows it, else reports the mismatch. Answers the mismatch; an
   * unreadable database leaves it as it was (readiness reports the database itself).
   */
  private async recheck(notified?: string): Promise<string | undefined> {
    const recorded = notified || (await this.fingerprints.read().catch(() => undefined));
    if (!recorded) return this.mismatch;
    if (this.secrets.writeWith(recorded)) {
      if (this.mismatch) this.logger.log({ msg: 'the database records this replica’s SERVER_SECRET again; ready' });
      this.mismatch = undefined;
    } else if (!this.mismatch) {
      this.mismatch = `${SECRET_MISMATCH} (the database moved to another secret while this process ran)`;
      this.logger.error({ msg: this.mismatch });
    }
    return this.mismatch;
  }
}
