import { Module } from '@nestjs/common';
import { WebhookEventPublisher } from './application/webhook-event-publisher.service.js';
import { WebhookEventRepository } from './domain/webhook-event.repository.js';
import { TypeOrmWebhookEventRepository } from './infrastructure/typeorm-webhook-event.repository.js';

@Module({
  providers: [{ provide: WebhookEventRepository, useClass: TypeOrmWebhookEventRepository }, WebhookEventPublisher],
  exports: [WebhookEventPublisher],
})
export class WebhooksModule {}
