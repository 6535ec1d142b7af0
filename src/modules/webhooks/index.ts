export { WebhooksModule } from './webhooks.module.js';
export { WebhookEventPublisher } from './application/webhook-event-publisher.service.js';
export { WebhookBacklog } from './application/webhook-backlog.service.js';
export { WebhookEndpointsService } from './application/webhook-endpoints.service.js';
export type { ChapterUnlockedEvent, NovelFinishedEvent, WebhookEvent } from './domain/webhook-event.js';
