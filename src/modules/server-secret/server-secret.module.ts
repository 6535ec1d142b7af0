import { Module } from '@nestjs/common';
import { IdempotencyModule } from '../idempotency/index.js';
import { IdentityModule } from '../identity/index.js';
import { WebhooksModule } from '../webhooks/index.js';
import { SecretRotationService } from './application/secret-rotation.service.js';
import { SecretStatusService } from './application/secret-status.service.js';
import { ServerSecretGate } from './application/server-secret-gate.js';
import { SecretFingerprintRepository } from './domain/secret-fingerprint.repository.js';
import { PgSecretFingerprintRepository } from './infrastructure/pg-secret-fingerprint.repository.js';

/**
 * The root secret's place in the database (ADR 0003): the start-up check that the database
 * goes with SERVER_SECRET, and the rotation that moves it to a new one without downtime.
 */
@Module({
  imports: [IdentityModule, WebhooksModule, IdempotencyModule],
  providers: [{ provide: SecretFingerprintRepository, useClass: PgSecretFingerprintRepository }, ServerSecretGate, SecretRotationService, SecretStatusService],
  exports: [SecretRotationService, SecretStatusService],
})
export class ServerSecretModule {}
