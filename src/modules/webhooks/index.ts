export { WebhooksModule } from './webhooks.module.js';
export { WebhookEventPublisher } from './application/webhook-event-publisher.service.js';
export { WebhookBacklog } from './application/webhook-backlog.service.js';
export { WebhookEndpointsService } from './application/webhook-endpoints.service.js';
export { WAITING_POLLS_PER_CREDENTIAL } from './application/waiting-polls.js';
// The delivery queue's port, for the bench, which times its claim and backlog reads (bench/load/webhook-backlog.ts).
export { WebhookDeliveryRepository } from './domain/webhook-delivery.repository.js';
export type { ChapterUnlockedEvent, NovelFinishedEvent, WebhookEvent } from './domain/webhook-event.js';
