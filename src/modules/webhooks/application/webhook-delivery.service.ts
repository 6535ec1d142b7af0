import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config.js';
import { ServerSecrets } from '../../../shared/crypto/server-secrets.js';
import { urlRulesFor } from '../domain/endpoint-url-policy.js';
import { isConfirmation, stateAfterAttempt } from '../domain/retry-schedule.js';
import { WebhookDeliveryRepository, type ClaimedDelivery } from '../domain/webhook-delivery.repository.js';
import { WebhookSender, type SendResult } from '../domain/webhook-sender.js';
import { signatureHeader } from '../domain/webhook-signature.js';

const USER_AGENT = 'PartnerReadingListeningAPI-Webhooks/1.0';

/**
 * Makes the attempts that are due, each exactly once across all replicas: a delivery is
 * leased before its attempt and settled by the holder of the lease (DECISIONS 16).
 */
@Injectable()
export class WebhookDeliveryService {
  private readonly logger = new Logger('WebhookDelivery');
  /**
   * An attempt takes at most the timeout; the lease leaves as long again to record it. A
   * replica that dies mid-attempt leaves the delivery due once the lease ends, so the
   * attempt is made again: at least once, never lost.
   */
  private readonly leaseMs: number;

  constructor(
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly sender: WebhookSender,
    private readonly secrets: ServerSecrets,
    @Inject(AppConfig) private readonly config: AppConfig,
  ) {
    this.leaseMs = 2 * config.webhookTimeoutMs;
  }

  /**
   * Leases up to `limit` due deliveries, within each partner's share of the concurrency
   * (WEBHOOK_PARTNER_CONCURRENCY per partner and environment, across replicas); attempt
   * each at once with `attempt`.
   */
  claimDue(limit: number): Promise<ClaimedDelivery[]> {
    return this.deliveries.claimDue(limit, this.config.webhookPartnerConcurrency, this.leaseMs);
  }

  /** Makes the attempt and records it. Never rejects: every failure is part of the record. */
  async attempt(claim: ClaimedDelivery): Promise<void> {
    const attemptedAt = new Date();
    const result = await this.send(claim);
    // Not the partner's failure: no attempt is logged or counted, and the delivery is due
    // again when the lease ends, maybe for a replica that can sign it.
    if (!result) return;
    const next = stateAfterAttempt(this.config.webhookRetryScheduleSeconds, claim.attemptsMade + 1, isConfirmation(result.statusCode));
    try {
      await this.deliveries.recordAttempt(claim, { ...result, attemptedAt }, next);
    } catch (error) {
      // Unrecorded, the attempt will be made again when the lease ends.
      this.logger.error({ msg: 'could not record a webhook delivery attempt', err: String(error), eventId: claim.eventId });
    }
  }

  /** The attempt's result, or null when this replica cannot sign the delivery. */
  private async send(claim: ClaimedDelivery): Promise<SendResult | null> {
    let headers: Record<string, string>;
    try {
      headers = this.headersFor(claim);
    } catch (error) {
      // A secret sealed under another SERVER_SECRET: a misconfigured replica, not the partner.
      this.logger.error({ msg: 'could not sign a webhook delivery', err: String(error), eventId: claim.eventId });
      return null;
    }
    const rules = urlRulesFor(claim.environment, this.config.webhookAllowInsecureUrls, this.config.isProduction);
    return this.sender.send({ url: claim.url, rules, body: claim.body, headers });
  }

  /**
   * Standard Webhooks headers, and the event's place in the partner's feed (a receiver that
   * sees a gap reads the feed from the last sequence it processed). The timestamp is the
   * attempt's, as receivers check its age.
   */
  private headersFor(claim: ClaimedDelivery): Record<string, string> {
    const timestamp = Math.floor(Date.now() / 1000);
    const secrets = claim.sealedSecrets.map((sealed) => this.secrets.unseal(sealed));
    return {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'webhook-id': claim.eventId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(secrets, claim.eventId, timestamp, claim.body),
      'webhook-sequence': String(claim.sequence),
    };
  }
}
