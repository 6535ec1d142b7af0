import { Inject, Injectable } from '@nestjs/common';
import { isIP } from 'node:net';
import { AppConfig } from '../../../config/app-config.js';
import { ServerSecrets } from '../../../shared/crypto/server-secrets.js';
import { DomainError, invalidRequest } from '../../../shared/errors/domain-error.js';
import { UnitOfWork } from '../../../shared/persistence/unit-of-work.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { allowedAddresses, checkEndpointUrl, hostOf, refusedAddresses, urlRulesFor } from '../domain/endpoint-url-policy.js';
import { HostResolver } from '../domain/host-resolver.js';
import { WebhookDeliveryRepository, type DeliveryRecord, type DeliveryStatus } from '../domain/webhook-delivery.repository.js';
import {
  WebhookEndpointRepository,
  type EndpointSecretRotation,
  type SealedEndpointSecret,
  type WebhookEndpoint,
} from '../domain/webhook-endpoint.repository.js';
import { WebhookEventRepository } from '../domain/webhook-event.repository.js';
import type { WebhookEventType } from '../domain/webhook-event.js';
import { newEndpointSecret } from '../domain/webhook-signature.js';

/** DECISIONS 16: after a rotation the old secret keeps signing alongside the new for 24 h. */
export const ROTATION_OVERLAP_SECONDS = 24 * 3600;

/**
 * DECISIONS 27: endpoints per partner and environment. Each event goes to every endpoint,
 * so the limit bounds the deliveries one event makes, and what one partner can queue.
 */
export const ENDPOINT_LIMIT = 10;
/**
 * How long registration waits for the URL's host to resolve. A keyed registration waits
 * inside its transaction (ADR 0158), so a name whose DNS never answers must not hold a
 * pooled connection for the resolver's own timeouts (seconds per attempt and server).
 */
export const REGISTRATION_LOOKUP_MS = 3000;

/** An endpoint with its secret, which is shown only in the answer that creates it. */
export interface EndpointWithSecret {
  endpoint: WebhookEndpoint;
  secret: string;
}

/** A partner's management of its endpoints (DECISIONS 16), always within its tenant. */
@Injectable()
export class WebhookEndpointsService {
  constructor(
    private readonly endpoints: WebhookEndpointRepository,
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly events: WebhookEventRepository,
    private readonly resolver: HostResolver,
    private readonly secrets: ServerSecrets,
    private readonly unitOfWork: UnitOfWork,
    @Inject(AppConfig) private readonly config: AppConfig,
  ) {}

  async create(tenant: Tenant, url: string, eventTypes: WebhookEventType[]): Promise<EndpointWithSecret> {
    await this.checkUrl(tenant, url);
    const secret = newEndpointSecret();
    const endpoint = await this.unitOfWork.run(() =>
      this.endpoints.createWithin(ENDPOINT_LIMIT, tenant, { url, eventTypes: [...new Set(eventTypes)], sealedSecret: this.secrets.seal(secret) }),
    );
    if (!endpoint) {
      throw new DomainError('endpoint_limit_reached', `At most ${ENDPOINT_LIMIT} webhook endpoints per environment: delete one first.`);
    }
    return { endpoint, secret };
  }

  list(tenant: Tenant): Promise<WebhookEndpoint[]> {
    return this.endpoints.list(tenant);
  }

  async remove(tenant: Tenant, id: string): Promise<void> {
    if (!(await this.endpoints.delete(tenant, id))) throw endpointNotFound(id);
  }

  async rotateSecret(tenant: Tenant, id: string): Promise<EndpointWithSecret & { previousSecretExpiresAt: Date }> {
    const secret = newEndpointSecret();
    const rotated = await this.unitOfWork.run(() => this.endpoints.rotateSecret(tenant, id, this.secrets.seal(secret), ROTATION_OVERLAP_SECONDS));
    if (!rotated) throw endpointNotFound(id);
    return { ...rotated, secret };
  }

  async deliveriesOf(tenant: Tenant, id: string, filter: { status?: DeliveryStatus; limit: number }): Promise<DeliveryRecord[]> {
    if (!(await this.endpoints.find(tenant, id))) throw endpointNotFound(id);
    return this.deliveries.listForEndpoint(tenant, id, filter);
  }

  /**
   * Sends the event again, with a fresh retry schedule, to every endpoint subscribed to
   * its type now: the ones it already went to, and ones added since (after a wrong URL was
   * replaced, say). A delivery whose attempt is in flight keeps it: no second attempt
   * starts beside it. Returns their ids.
   */
  async redeliver(tenant: Tenant, eventId: string): Promise<string[]> {
    const eventType = await this.events.typeOf(tenant, eventId);
    if (!eventType) throw new DomainError('not_found', `No webhook event ${eventId}.`);
    const endpointIds = await this.deliveries.schedule(tenant, eventId, eventType, this.config.webhookRetryScheduleSeconds[0]);
    if (endpointIds.length === 0) throw new DomainError('conflict', `No webhook endpoint subscribes to ${eventType}: register one first.`);
    return endpointIds;
  }

  /**
   * A new secret for every endpoint, sealed with the writing root secret, the replaced one
   * signing beside it for the same overlap a partner's own rotation has (ADR 0003). Partners
   * never see these secrets: they call rotate-secret within the overlap to get one they know.
   */
  rotateAllSecrets(): Promise<EndpointSecretRotation[]> {
    return this.endpoints.rotateAllSecrets(() => this.secrets.seal(newEndpointSecret()), ROTATION_OVERLAP_SECONDS);
  }

  /** Endpoints with a secret the writing root secret does not open: sealed under another (`secret:status`). */
  async sealedUnderOtherSecret(): Promise<SealedEndpointSecret[]> {
    const stale = new Map<string, SealedEndpointSecret>();
    for (const { sealedSecret, ...endpoint } of await this.endpoints.allSealedSecrets()) {
      // Once per endpoint, though during a rotation's overlap it has two secrets.
      if (!this.secrets.sealedWith(sealedSecret, this.secrets.writingFingerprint)) stale.set(endpoint.endpointId, endpoint);
    }
    return [...stale.values()];
  }

  /** Seals every endpoint secret again with `reseal` (a root secret rotation, ADR 0003); returns how many. */
  resealAllSecrets(reseal: (sealed: string) => string): Promise<number> {
    return this.endpoints.resealAllSecrets(reseal);
  }

  /** The URL rules of the tenant's environment, and the host's current addresses (checked again at every delivery). */
  private async checkUrl(tenant: Tenant, url: string): Promise<void> {
    const rules = urlRulesFor(tenant.environment, this.config.webhookAllowInsecureUrls, this.config.isProduction);
    const check = checkEndpointUrl(url, rules);
    if (!check.ok) throw invalidRequest(`${check.reason}.`);
    if (rules === 'unrestricted') return;
    const host = hostOf(check.url);
    const addresses = isIP(host) ? [host] : await resolvedWithin(this.resolver.addressesOf(host), REGISTRATION_LOOKUP_MS);
    // Never what the name resolves to, nor what kind of address: that would turn this
    // endpoint into a resolver of the service's internal names (DECISIONS 27).
    if (refusedAddresses(host, addresses, rules)) {
      throw invalidRequest(`url must point to a host that resolves to ${allowedAddresses(rules)} only; ${host} does not.`);
    }
  }
}

/** The addresses found, or none when the lookup fails or outlasts `ms`. */
function resolvedWithin(lookup: Promise<string[]>, ms: number): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<string[]>((resolve) => {
    timer = setTimeout(() => resolve([]), ms).unref();
  });
  return Promise.race([lookup.catch(() => []), deadline]).finally(() => clearTimeout(timer));
}

const endpointNotFound = (id: string) => new DomainError('not_found', `No webhook endpoint ${id}.`);
