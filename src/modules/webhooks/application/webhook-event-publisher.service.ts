import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AppConfig } from '../../../config/app-config.js';
import { UnitOfWork } from '../../../shared/persistence/unit-of-work.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { WebhookDeliveryRepository } from '../domain/webhook-delivery.repository.js';
import { WebhookEventRepository } from '../domain/webhook-event.repository.js';
import { WebhookEndpointRepository } from '../domain/webhook-endpoint.repository.js';
import type { ChapterUnlockedEvent, NovelFinishedEvent, WebhookEvent } from '../domain/webhook-event.js';

/**
 * Publishes events into the outbox. Call it inside the UnitOfWork that makes the change:
 * the event then exists if and only if the change was committed (DECISIONS 16). The event
 * is addressed, in the same transaction, to the endpoints subscribed at that moment.
 */
@Injectable()
export class WebhookEventPublisher {
  constructor(
    private readonly events: WebhookEventRepository,
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly endpoints: WebhookEndpointRepository,
    private readonly unitOfWork: UnitOfWork,
    @Inject(AppConfig) private readonly config: AppConfig,
  ) {}

  async novelFinished(tenant: Tenant, data: NovelFinishedEvent['data'], occurredAt: Date): Promise<NovelFinishedEvent> {
    const event: NovelFinishedEvent = {
      event: 'novel.finished',
      event_id: randomUUID(),
      occurred_at: occurredAt.toISOString(),
      data: { subscriber_id: data.subscriber_id, novel_id: data.novel_id, choice_id: data.choice_id },
    };
    await this.publish(tenant, event);
    return event;
  }

  /**
   * A chapter released for a reader, announced only to partners that subscribed to it
   * before its release instant (DECISIONS 23): null, and nothing written, otherwise.
   */
  /**
   * `subscribedBefore`: endpoints registered after it miss the event (by default the release
   * itself: an endpoint does not receive the past). A test clock's instant is not real time,
   * so its announcements go to the endpoints registered when the clock advanced.
   */
  async chapterUnlocked(
    tenant: Tenant,
    data: ChapterUnlockedEvent['data'],
    releasedAt: Date,
    subscribedBefore = releasedAt,
  ): Promise<ChapterUnlockedEvent | null> {
    if (!(await this.endpoints.isSubscribed(tenant, 'chapter.unlocked', subscribedBefore))) return null;
    const event: ChapterUnlockedEvent = {
      event: 'chapter.unlocked',
      event_id: randomUUID(),
      occurred_at: releasedAt.toISOString(),
      data: { subscriber_id: data.subscriber_id, novel_id: data.novel_id, chapter_number: data.chapter_number, chapter_id: data.chapter_id },
    };
    await this.publish(tenant, event, subscribedBefore);
    return event;
  }

  /** `subscribedBefore`: only endpoints registered before it receive the event. */
  private publish(tenant: Tenant, event: WebhookEvent, subscribedBefore?: Date): Promise<void> {
    // Joins the caller's transaction; on its own it still writes the event and its
    // deliveries together.
    return this.unitOfWork.run(async () => {
      await this.events.append(tenant, event);
      await this.deliveries.schedule(tenant, event.event_id, event.event, this.config.webhookRetryScheduleSeconds[0], subscribedBefore);
    });
  }
}
