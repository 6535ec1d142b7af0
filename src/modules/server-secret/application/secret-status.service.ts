import { Injectable } from '@nestjs/common';
import { ServerSecrets } from '../../../shared/crypto/server-secrets.js';
import { IdempotencyService } from '../../idempotency/index.js';
import { PartnerCredentialsService, SigningKeyService } from '../../identity/index.js';
import { WebhookEndpointsService } from '../../webhooks/index.js';

export interface SecretStatus {
  /** Which configured variable holds the secret the database records. */
  recorded_secret: 'SERVER_SECRET' | 'SERVER_SECRET_PREVIOUS';
  /** Unrevoked credentials hashed under another secret: each is re-hashed at its next token request. */
  credentials: { client_id: string; partner_id: string; environment: string; last_used_at: string | null }[];
  /** Signing keys whose private half is sealed under another secret: `secret:rotate` re-seals them. */
  signing_keys: { kid: string; issuer: string; signs_from: string }[];
  /** Endpoints with a secret sealed under another secret (written by a replica on an old one): `secret:rotate` re-seals them. */
  webhook_endpoints: { endpoint_id: string; partner_id: string; environment: string }[];
  /** Stored answers of keyed writes sealed under another secret (they carry a secret): `secret:rotate` re-seals them. */
  idempotent_answers: { partner_id: string; environment: string; key: string }[];
}

/**
 * `secret:status` (ADR 0003): what the database still holds under another root secret than
 * the one it records, so that removing SERVER_SECRET_PREVIOUS (or a replica left on an old
 * secret) breaks nothing unseen.
 */
@Injectable()
export class SecretStatusService {
  constructor(
    private readonly secrets: ServerSecrets,
    private readonly credentials: PartnerCredentialsService,
    private readonly signingKeys: SigningKeyService,
    private readonly webhookEndpoints: WebhookEndpointsService,
    private readonly idempotency: IdempotencyService,
  ) {}

  async status(): Promise<SecretStatus> {
    const [credentials, keys, endpoints, answers] = await Promise.all([
      this.credentials.hashedUnderOtherSecret(),
      this.signingKeys.sealedUnderOtherSecret(),
      this.webhookEndpoints.sealedUnderOtherSecret(),
      this.idempotency.sealedUnderOtherSecret(),
    ]);
    return {
      recorded_secret: this.secrets.writingFingerprint === this.secrets.fingerprints.current ? 'SERVER_SECRET' : 'SERVER_SECRET_PREVIOUS',
      credentials: credentials.map((c) => ({
        client_id: c.clientId,
        partner_id: c.partnerId,
        environment: c.environment,
        last_used_at: c.lastUsedAt?.toISOString() ?? null,
      })),
      signing_keys: keys.map((k) => ({ kid: k.kid, issuer: k.issuer, signs_from: k.signsFrom.toISOString() })),
      webhook_endpoints: endpoints.map((e) => ({ endpoint_id: e.endpointId, partner_id: e.partnerId, environment: e.environment })),
      idempotent_answers: answers.map((a) => ({ partner_id: a.partnerId, environment: a.environment, key: a.key })),
    };
  }
}
