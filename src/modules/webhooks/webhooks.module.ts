import { Module } from '@nestjs/common';
import { WebhookDeliveryService } from './application/webhook-delivery.service.js';
import { WebhookDeliveryWorker } from './application/webhook-delivery.worker.js';
import { WebhookEndpointsService } from './application/webhook-endpoints.service.js';
import { WebhookEventPublisher } from './application/webhook-event-publisher.service.js';
import { HostResolver } from './domain/host-resolver.js';
import { WebhookDeliveryRepository } from './domain/webhook-delivery.repository.js';
import { WebhookEndpointRepository } from './domain/webhook-endpoint.repository.js';
import { WebhookEventRepository } from './domain/webhook-event.repository.js';
import { WebhookSender } from './domain/webhook-sender.js';
import { WebhooksController } from './http/webhooks.controller.js';
import { DnsHostResolver } from './infrastructure/dns-host-resolver.js';
import { HttpWebhookSender } from './infrastructure/http-webhook-sender.js';
import { TypeOrmWebhookDeliveryRepository } from './infrastructure/typeorm-webhook-delivery.repository.js';
import { TypeOrmWebhookEndpointRepository } from './infrastructure/typeorm-webhook-endpoint.repository.js';
import { PgWebhookEventRepository } from './infrastructure/pg-webhook-event.repository.js';

/**
 * Outbound events (contract 6, DECISIONS 16): the outbox publisher other modules call,
 * endpoint management, and the delivery worker.
 */
@Module({
  controllers: [WebhooksController],
  providers: [
    { provide: WebhookEventRepository, useClass: PgWebhookEventRepository },
    { provide: WebhookEndpointRepository, useClass: TypeOrmWebhookEndpointRepository },
    { provide: WebhookDeliveryRepository, useClass: TypeOrmWebhookDeliveryRepository },
    { provide: HostResolver, useClass: DnsHostResolver },
    { provide: WebhookSender, useClass: HttpWebhookSender },
    WebhookEventPublisher,
    WebhookEndpointsService,
    WebhookDeliveryService,
    WebhookDeliveryWorker,
  ],
  exports: [WebhookEventPublisher],
})
export class WebhooksModule {}
