/** The event types a partner can subscribe to: the one event of the contract (section 6). */
export const WEBHOOK_EVENT_TYPES = ['novel.finished'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export interface NovelFinishedEvent {
  event: 'novel.finished';
  event_id: string;
  occurred_at: string;
  data: { subscriber_id: string; novel_id: string; choice_id: string };
}

export type WebhookEvent = NovelFinishedEvent;
