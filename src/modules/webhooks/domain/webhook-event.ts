/**
 * The event types a partner can subscribe to: the contract's one event (section 6), and
 * the opt-in release notification (DECISIONS 23).
 */
export const WEBHOOK_EVENT_TYPES = ['novel.finished', 'chapter.unlocked'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export interface NovelFinishedEvent {
  event: 'novel.finished';
  event_id: string;
  occurred_at: string;
  data: { subscriber_id: string; novel_id: string; choice_id: string };
}

export interface ChapterUnlockedEvent {
  event: 'chapter.unlocked';
  event_id: string;
  /** The chapter's release instant by the drip rule (early access included). */
  occurred_at: string;
  data: { subscriber_id: string; novel_id: string; chapter_number: number; chapter_id: string };
}

export type WebhookEvent = NovelFinishedEvent | ChapterUnlockedEvent;
