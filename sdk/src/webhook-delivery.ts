import { WebhookVerificationError } from './errors.js';
import type { WebhookEvent } from './types.js';

/** Request headers as Node's `IncomingMessage.headers` or a fetch `Headers` gives them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * A verified delivery's event, with `seq` from the `webhook-sequence` header: the same shape
 * as a feed item, so one handler serves both. `seq` is undefined when the header is absent
 * (it is not signed, so a proxy may drop it): then order by the feed, not by the delivery.
 */
export type VerifiedWebhook = WebhookEvent & { seq: number | undefined };

/** Header names in lower case, each with one value. */
export function flattenHeaders(headers: WebhookHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  const entries: Iterable<[string, string | string[] | undefined]> = headers instanceof Headers ? headers.entries() : Object.entries(headers);
  for (const [name, value] of entries) {
    if (value === undefined) continue;
    flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/** The verified payload as an event with its `seq`; a `webhook-sequence` that is present must be a seq. */
export function deliveredEvent(payload: unknown, headers: Record<string, string>): VerifiedWebhook {
  const sequence = headers['webhook-sequence'];
  if (sequence !== undefined && !/^\d+$/.test(sequence))
    throw new WebhookVerificationError(`webhook refused: webhook-sequence ${JSON.stringify(sequence)} is not a seq`);
  if (typeof payload !== 'object' || payload === null || typeof (payload as { event?: unknown }).event !== 'string') {
    throw new WebhookVerificationError('webhook refused: the body is not an event');
  }
  return { ...(payload as WebhookEvent), seq: sequence === undefined ? undefined : Number(sequence) };
}
