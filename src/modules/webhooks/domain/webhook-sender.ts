import type { UrlRules } from './endpoint-url-policy.js';

/** One HTTP request of a delivery attempt. */
export interface OutgoingWebhook {
  url: string;
  /** The URL rules of the endpoint's environment, applied again at every attempt. */
  rules: UrlRules;
  headers: Record<string, string>;
  body: string;
}

/**
 * Why an attempt failed, as the deliveries log shows it (DECISIONS 27). Only a category:
 * raw socket errors would tell a partner which hosts and ports answer, and how.
 * - `timeout`: no status arrived within WEBHOOK_TIMEOUT_MS;
 * - `connection_refused`: no connection was made, or it broke before a status arrived
 *   (refused, reset, unreachable), or the address is one the URL rules refuse;
 * - `tls`: the TLS handshake failed (certificate not valid for the host, expired, untrusted);
 * - `dns`: the host name did not resolve;
 * - `http_status`: the receiver answered with a status other than 2xx (redirects included).
 */
export const DELIVERY_FAILURES = ['timeout', 'connection_refused', 'tls', 'dns', 'http_status'] as const;
export type DeliveryFailure = (typeof DELIVERY_FAILURES)[number];

/** What came of it: a status code, or the reason there was none. */
export interface SendResult {
  statusCode: number | null;
  durationMs: number;
  /** Null when the receiver confirmed with a 2xx. */
  failure: DeliveryFailure | null;
}

/** Sends a delivery to a partner's endpoint, enforcing the URL rules on the way. */
export abstract class WebhookSender {
  /** Never throws: every failure is a result with its category. */
  abstract send(webhook: OutgoingWebhook): Promise<SendResult>;
}
