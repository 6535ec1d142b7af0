import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/db.js';
import type { ErasedCounts, ExportedSections, SubscriberDataHolder } from '../../../shared/tenancy/subscriber-data.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';

/** The events naming the subscriber, in the feed's order (index webhook_events_subscriber, migration 1764200100000). */
const EVENTS_OF = `partner_id = $1 AND environment = $2 AND payload #>> '{data,subscriber_id}' = $3`;

/**
 * The events that name a subscriber (DECISIONS 22, 29). An erasure keeps them in the feed at
 * their sequence numbers, so that readers still see no gap, with `data.subscriber_id` null
 * and `data.erased` true, and cancels their deliveries not yet made: a delivery in flight
 * loses its lease, and its result changes nothing (the worker settles only its own lease).
 * A test clock's clean slate leaves the feed alone: what was sent stays as it was sent.
 */
@Injectable()
export class WebhookSubscriberData implements SubscriberDataHolder {
  readonly name = 'events';
  readonly columns = ['webhook_events.payload'];

  constructor(private readonly db: Db) {}

  async export(tenant: Tenant, subscriberId: string): Promise<ExportedSections> {
    const events = await this.db.query(
      `SELECT seq::float8 AS seq, event_id, event_type AS event, occurred_at, payload -> 'data' AS data FROM webhook_events WHERE ${EVENTS_OF} ORDER BY seq`,
      [tenant.partnerId, tenant.environment, subscriberId],
    );
    return { events };
  }

  async erase(tenant: Tenant, subscriberId: string): Promise<Partial<ErasedCounts>> {
    const [{ events }] = await this.db.query<{ events: number }>(
      `WITH erased AS (
         UPDATE webhook_events SET payload = jsonb_set(payload, '{data}', (payload -> 'data') || '{"subscriber_id": null, "erased": true}')
          WHERE ${EVENTS_OF} RETURNING event_id
       ), cancelled AS (
         UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL, claim_token = NULL, updated_at = now()
          WHERE event_id IN (SELECT event_id FROM erased) AND status IN ('pending', 'failed')
       )
       SELECT count(*)::int AS events FROM erased`,
      [tenant.partnerId, tenant.environment, subscriberId],
    );
    return { events };
  }
}
