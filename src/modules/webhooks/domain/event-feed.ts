import type { WebhookEvent } from './webhook-event.js';

/** How long events stay readable in the feed (DECISIONS 22). */
export const EVENT_RETENTION_DAYS = 90;
export const FEED_DEFAULT_LIMIT = 100;
export const FEED_MAX_LIMIT = 500;
export const FEED_MAX_WAIT_SECONDS = 30;

/** An event as the feed serves it: the webhook payload itself plus its place in the feed. */
export type FeedItem = WebhookEvent & { seq: number };

export interface FeedPage {
  items: FeedItem[];
  /** The `after` that reads on from this page. */
  nextAfter: number;
  hasMore: boolean;
}

/**
 * Whether reading on from `after` would skip events removed by retention: the event right
 * after it (`after + 1`) is gone when retention removed every seq up to `prunedThrough`.
 */
export const isExpired = (after: number, prunedThrough: number): boolean => after < prunedThrough;

/** Builds a page from up to `limit + 1` items read after `after`. */
export function feedPage(after: number, limit: number, itemsRead: FeedItem[]): FeedPage {
  const items = itemsRead.slice(0, limit);
  return { items, nextAfter: items.at(-1)?.seq ?? after, hasMore: itemsRead.length > limit };
}

export function retentionCutoff(now: Date): Date {
  return new Date(now.getTime() - EVENT_RETENTION_DAYS * 86_400_000);
}
