import type { Environment, Tenant } from '../../../shared/tenancy/tenant.js';
import type { DeliveryState } from './retry-schedule.js';
import type { WebhookEventType } from './webhook-event.js';
import type { DeliveryFailure } from './webhook-sender.js';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'cancelled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** A due delivery that one worker has leased to make one attempt. */
export interface ClaimedDelivery {
  deliveryId: string;
  /** Names this lease: only its holder may settle the delivery. */
  claimToken: string;
  /** Attempts made since the delivery was (re)scheduled, before this one. */
  attemptsMade: number;
  eventId: string;
  /** The endpoint's environment, whose URL rules apply to the attempt. */
  environment: Environment;
  /** The event's `seq` in the partner's feed. */
  sequence: number;
  /** The event's payload exactly as stored: the body to send. */
  body: string;
  url: string;
  /** The endpoint's secrets that sign now, newest first, sealed. */
  sealedSecrets: string[];
}

export interface DeliveryAttempt {
  /** Null when no response arrived (refused address, connection error, timeout). */
  statusCode: number | null;
  durationMs: number;
  /** Why the attempt failed; null when it was confirmed. */
  failure: DeliveryFailure | null;
  attemptedAt: Date;
}

export interface DeliveryRecord {
  eventId: string;
  eventType: WebhookEventType;
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
  createdAt: Date;
  attempts: DeliveryAttempt[];
}

/** What operators watch of the queue (the `webhook_*` gauges). */
export interface BacklogFigures {
  /** Deliveries still to be delivered, retries included. */
  pending: number;
  /** Deliveries whose attempts are exhausted. */
  failed: number;
  /** How long the oldest due delivery has waited past its attempt time; 0 when none is due. */
  oldestDueSeconds: number;
}

/**
 * The delivery queue: one delivery per (event, endpoint), due at `next attempt`, claimed by
 * one worker at a time, with every attempt logged.
 */
export abstract class WebhookDeliveryRepository {
  /**
   * Schedules the event for every endpoint of the tenant subscribed to its type (and
   * registered before `subscribedBefore`, when given), due in `delaySeconds`; a delivery
   * that already exists starts over, unless its attempt is in flight (leased): that attempt
   * is the delivery, and no second one starts beside it. Returns the ids of the subscribed
   * endpoints.
   */
  abstract schedule(tenant: Tenant, eventId: string, eventType: WebhookEventType, delaySeconds: number, subscribedBefore?: Date): Promise<string[]>;
  /**
   * Leases up to `limit` due deliveries for `leaseMs`, none of them leased by anyone else,
   * fairly: at most `perTenant` leases live at once for one partner and environment, across
   * every claimer, and the tenants take turns (each one's earliest due first). A lease that
   * ends before its attempt is recorded makes the delivery due again.
   */
  abstract claimDue(limit: number, perTenant: number, leaseMs: number): Promise<ClaimedDelivery[]>;
  /**
   * Logs the attempt and, if the lease is still the claim's, moves the delivery to `next`.
   * Nothing is recorded when the endpoint was deleted meanwhile.
   */
  abstract recordAttempt(claim: ClaimedDelivery, attempt: DeliveryAttempt, next: DeliveryState): Promise<void>;
  /** The backlog, read from counts and one index probe per tenant: never one row per delivery waiting. */
  abstract backlog(): Promise<BacklogFigures>;
  /** The endpoint's deliveries, newest first, each with its attempts in order. */
  abstract listForEndpoint(tenant: Tenant, endpointId: string, filter: { status?: DeliveryStatus; limit: number }): Promise<DeliveryRecord[]>;
}
