import { Injectable } from '@nestjs/common';
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { EventArrivals } from '../domain/event-arrivals.js';
import { EVENT_RETENTION_DAYS, feedPage, isExpired, type FeedPage } from '../domain/event-feed.js';
import { WebhookEventRepository } from '../domain/webhook-event.repository.js';

export interface FeedRequest {
  after: number;
  limit: number;
  waitSeconds: number;
}

/**
 * The partner's event feed (DECISIONS 22): every event it is sent, in `seq` order, with
 * long polling. A reader that missed webhooks reads on from the last `seq` it saw.
 */
@Injectable()
export class EventFeedService {
  constructor(
    private readonly events: WebhookEventRepository,
    private readonly arrivals: EventArrivals,
  ) {}

  async read(tenant: Tenant, { after, limit, waitSeconds }: FeedRequest): Promise<FeedPage> {
    if (after > 0 && isExpired(after, await this.events.prunedThrough(tenant))) {
      throw new DomainError(
        'events_expired',
        `Events after seq ${after} are no longer kept (events are kept ${EVENT_RETENTION_DAYS} days): read the current state through the API, then read on from the feed's oldest event (after=0).`,
      );
    }
    const deadline = Date.now() + waitSeconds * 1000;
    for (;;) {
      // Watch before reading: an event committed between the read and the wait still wakes it.
      const watch = waitSeconds > 0 ? await this.arrivals.watch(tenant) : undefined;
      try {
        const page = feedPage(after, limit, await this.events.readAfter(tenant, after, limit + 1));
        const remaining = deadline - Date.now();
        if (page.items.length > 0 || !watch || remaining <= 0) return page;
        await Promise.race([watch.arrived, delay(remaining)]);
      } finally {
        watch?.stop();
      }
    }
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
