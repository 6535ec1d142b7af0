import { Module } from '@nestjs/common';
import { EventFeedService } from './application/event-feed.service.js';
import { EventRetentionJob } from './application/event-retention.job.js';
import { WaitingPolls } from './application/waiting-polls.js';
import { WebhookBacklog } from './application/webhook-backlog.service.js';
import { WebhookDeliveryService } from './application/webhook-delivery.service.js';
import { WebhookDeliveryWorker } from './application/webhook-delivery.worker.js';
import { WebhookEndpointsService } from './application/webhook-endpoints.service.js';
import { WebhookEventPublisher } from './application/webhook-event-publisher.service.js';
import { EventArrivals } from './domain/event-arrivals.js';
import { HostResolver } from './domain/host-resolver.js';
import { WebhookDeliveryRepository } from './domain/webhook-delivery.repository.js';
import { WebhookEndpointRepository } from './domain/webhook-endpoint.repository.js';
import { WebhookEventRepository } from './domain/webhook-event.repository.js';
import { WebhookSender } from './domain/webhook-sender.js';
import { EventFeedController } from './http/event-feed.controller.js';
import { WebhooksController } from './http/webhooks.controller.js';
import { DnsHostResolver } from './infrastructure/dns-host-resolver.js';
import { HttpWebhookSender } from './infrastructure/http-webhook-sender.js';
import { PgEventArrivals } from './infrastructure/pg-event-arrivals.js';
import { TypeOrmWebhookDeliveryRepository } from './infrastructure/typeorm-webhook-delivery.repository.js';
import { TypeOrmWebhookEndpointRepository } from './infrastructure/typeorm-webhook-endpoint.repository.js';
import { PgWebhookEventRepository } from './infrastructure/pg-webhook-event.repository.js';
import { WEBHOOK_DELIVERY_COUNTS } from './infrastructure/webhook.entities.js';
import { WebhookSubscriberData } from './infrastructure/webhook.subscriber-data.js';
import { subscriberData } from '../../shared/persistence/subscriber-rows.js';

/**
 * Outbound events (contract 6, DECISIONS 16, 22): the outbox publisher other modules call,
 * endpoint management, the delivery worker, and the event feed with its retention.
 */
@Module({
  controllers: [WebhooksController, EventFeedController],
  providers: [
    WEBHOOK_DELIVERY_COUNTS,
    ...subscriberData(WebhookSubscriberData),
    { provide: WebhookEventRepository, useClass: PgWebhookEventRepository },
    { provide: WebhookEndpointRepository, useClass: TypeOrmWebhookEndpointRepository },
    { provide: WebhookDeliveryRepository, useClass: TypeOrmWebhookDeliveryRepository },
    { provide: HostResolver, useClass: DnsHostResolver },
    { provide: WebhookSender, useClass: HttpWebhookSender },
    { provide: EventArrivals, useClass: PgEventArrivals },
    EventFeedService,
    WaitingPolls,
    EventRetentionJob,
    WebhookEventPublisher,
    WebhookEndpointsService,
    WebhookDeliveryService,
    WebhookDeliveryWorker,
    WebhookBacklog,
  ],
  exports: [WebhookEventPublisher, WebhookBacklog, WebhookEndpointsService],
})
export class WebhooksModule {}
