/** The one event of the contract (section 6). */
export interface NovelFinishedEvent {
  event: 'novel.finished';
  event_id: string;
  occurred_at: string;
  data: { subscriber_id: string; novel_id: string; choice_id: string };
}

export type WebhookEvent = NovelFinishedEvent;
