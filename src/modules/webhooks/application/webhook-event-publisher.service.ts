import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { WebhookEventRepository } from '../domain/webhook-event.repository.js';
import type { NovelFinishedEvent } from '../domain/webhook-event.js';

/**
 * Publishes events into the outbox. Call it inside the UnitOfWork that makes the change:
 * the event then exists if and only if the change was committed (DECISIONS 16).
 */
@Injectable()
export class WebhookEventPublisher {
  constructor(private readonly events: WebhookEventRepository) {}

  async novelFinished(tenant: Tenant, data: NovelFinishedEvent['data'], occurredAt: Date): Promise<NovelFinishedEvent> {
    const event: NovelFinishedEvent = {
      event: 'novel.finished',
      event_id: randomUUID(),
      occurred_at: occurredAt.toISOString(),
      data: { subscriber_id: data.subscriber_id, novel_id: data.novel_id, choice_id: data.choice_id },
    };
    await this.events.append(tenant, event);
    return event;
  }
}
