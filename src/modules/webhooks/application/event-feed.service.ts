import { Injectable } from '@nestjs/common';
import { DomainError } from '../../../shared/errors/domain-error.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { EVENT_RETENTION_DAYS, feedPage, isExpired, type FeedPage } from '../domain/event-feed.js';
import { WebhookEventRepository } from '../domain/webhook-event.repository.js';
import { WaitingPolls } from './waiting-polls.js';

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
    private readonly waitingPolls: WaitingPolls,
  ) {}

  /** `clientId` is the credential asking: it may hold only so many waiting polls at once. */
  async read(tenant: Tenant, clientId: string, { after, limit, waitSeconds }: FeedRequest): Promise<FeedPage> {
    if (after > 0 && isExpired(after, await this.events.prunedThrough(tenant))) {
      throw new DomainError(
        'events_expired',
        `Events after seq ${after} are no longer kept (events are kept ${EVENT_RETENTION_DAYS} days): read the current state through the API, then read on from the feed's oldest event (after=0).`,
      );
    }
    if (waitSeconds === 0) return feedPage(after, limit, await this.events.readAfter(tenant, after, limit + 1));
    return this.waitingPolls.wait(tenant, clientId, after, limit, waitSeconds);
  }
}
