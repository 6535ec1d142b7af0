/** One HTTP request of a delivery attempt. */
export interface OutgoingWebhook {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** What came of it: a status code, or the reason there was none. */
export interface SendResult {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

/** Sends a delivery to a partner's endpoint, enforcing the URL policy on the way. */
export abstract class WebhookSender {
  /** Never throws: every failure is a result with an error. */
  abstract send(webhook: OutgoingWebhook): Promise<SendResult>;
}
