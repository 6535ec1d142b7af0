import type { Tenant } from '../../../shared/tenancy/tenant.js';
import type { WebhookEventType } from './webhook-event.js';

export interface WebhookEndpoint {
  id: string;
  url: string;
  eventTypes: WebhookEventType[];
  createdAt: Date;
}

export interface NewWebhookEndpoint {
  url: string;
  eventTypes: WebhookEventType[];
  /** The signing secret, sealed with the server secret: it must be read back to sign. */
  sealedSecret: string;
}

export interface RotatedSecret {
  endpoint: WebhookEndpoint;
  /** Until when the replaced secret keeps signing. */
  previousSecretExpiresAt: Date;
}

/** Which endpoint, of which tenant, a secret belongs to. */
export interface SealedEndpointSecret {
  endpointId: string;
  partnerId: string;
  environment: Tenant['environment'];
}

/** One endpoint whose secret an operator rotated, and until when its replaced secret signs. */
export interface EndpointSecretRotation extends SealedEndpointSecret {
  previousSecretExpiresAt: Date;
}

/** A partner's receiving endpoints, per environment, and their signing secrets. */
export abstract class WebhookEndpointRepository {
  /**
   * Creates the endpoint unless the tenant already has `limit` endpoints (null then).
   * Run inside a UnitOfWork: concurrent creates for one tenant then take turns until it
   * commits, so the limit holds under a race.
   */
  abstract createWithin(limit: number, tenant: Tenant, endpoint: NewWebhookEndpoint): Promise<WebhookEndpoint | null>;
  abstract list(tenant: Tenant): Promise<WebhookEndpoint[]>;
  abstract find(tenant: Tenant, id: string): Promise<WebhookEndpoint | null>;
  /** True when the tenant had the endpoint. Its pending deliveries go with it. */
  abstract delete(tenant: Tenant, id: string): Promise<boolean>;
  /**
   * Makes `sealedSecret` the endpoint's current secret; the secret it replaces keeps
   * signing for `overlapSeconds`. Null when the tenant has no such endpoint. Run inside a
   * UnitOfWork: the endpoint stays locked until it commits.
   */
  abstract rotateSecret(tenant: Tenant, id: string, sealedSecret: string, overlapSeconds: number): Promise<RotatedSecret | null>;
  /**
   * Gives every endpoint of every tenant a new current secret (`newSealedSecret()` each),
   * as `rotateSecret` does for one: the replaced secret keeps signing for `overlapSeconds`
   * (a rotation after a SERVER_SECRET leak, ADR 0003). Run inside a UnitOfWork.
   */
  abstract rotateAllSecrets(newSealedSecret: () => string, overlapSeconds: number): Promise<EndpointSecretRotation[]>;
  /** Every endpoint secret of every tenant, sealed, with its endpoint (`secret:status`). */
  abstract allSealedSecrets(): Promise<(SealedEndpointSecret & { sealedSecret: string })[]>;
  /** Rewrites every endpoint secret, of every tenant, with `reseal` (a root secret rotation); returns how many. */
  abstract resealAllSecrets(reseal: (sealed: string) => string): Promise<number>;
  /** Whether an endpoint of the tenant registered before `before` subscribes to `eventType`. */
  abstract isSubscribed(tenant: Tenant, eventType: WebhookEventType, before: Date): Promise<boolean>;
}
