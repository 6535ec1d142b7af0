import { Inject, Injectable } from '@nestjs/common';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { AppConfig } from '../../../config/app-config.js';
import { checkEndpointUrl, refusedAddresses, type UrlRules } from '../domain/endpoint-url-policy.js';
import { HostResolver } from '../domain/host-resolver.js';
import { isConfirmation } from '../domain/retry-schedule.js';
import { WebhookSender, type DeliveryFailure, type OutgoingWebhook, type SendResult } from '../domain/webhook-sender.js';

/**
 * POSTs deliveries with node:http(s). The URL rules are applied again at every attempt,
 * and the addresses of the host are checked inside the connection's own DNS lookup: the
 * address checked is the address connected to, so a name that re-resolves to a refused
 * address after registration (DNS rebinding) is refused. Redirects are never followed
 * (node:http does not), so a 3xx cannot lead the request elsewhere.
 */
@Injectable()
export class HttpWebhookSender extends WebhookSender {
  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    private readonly resolver: HostResolver,
  ) {
    super();
  }

  async send(webhook: OutgoingWebhook): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const check = checkEndpointUrl(webhook.url, webhook.rules);
    if (!check.ok) return { statusCode: null, durationMs: elapsed(), failure: 'connection_refused' };
    try {
      const statusCode = await this.post(check.url, webhook);
      return { statusCode, durationMs: elapsed(), failure: isConfirmation(statusCode) ? null : 'http_status' };
    } catch (error) {
      return { statusCode: null, durationMs: elapsed(), failure: categoryOf(error) };
    }
  }

  /** Resolves with the status code as soon as the response's head arrives. */
  private post(url: URL, webhook: OutgoingWebhook): Promise<number> {
    const body = Buffer.from(webhook.body, 'utf8');
    const client = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const request = client.request(url, {
        method: 'POST',
        headers: { ...webhook.headers, 'content-length': String(body.length) },
        // A fresh connection per attempt: every connection goes through the checked lookup.
        agent: false,
        signal: AbortSignal.timeout(this.config.webhookTimeoutMs),
        lookup: webhook.rules === 'unrestricted' ? undefined : this.checkedLookup(webhook.rules),
      });
      // Errors may still come after the status (a body cut short, the timeout): ignore them.
      request.on('error', reject);
      request.on('response', (response) => {
        response.on('error', () => undefined);
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      request.end(body);
    });
  }

  private checkedLookup(rules: UrlRules): LookupFunction {
    return (hostname, options, callback) => {
      this.resolver.addressesOf(hostname).then(
        (addresses) => {
          const refusal = refusedAddresses(hostname, addresses, rules);
          if (refusal) {
            callback(new AddressRefusedError(refusal), '', 0);
            return;
          }
          const family = options.family === 4 || options.family === 6 ? options.family : undefined;
          const usable = addresses.map((address) => ({ address, family: isIP(address) })).filter((entry) => !family || entry.family === family);
          if (usable.length === 0) callback(new AddressRefusedError(`${hostname} has no IPv${family} address`), '', 0);
          else if (options.all) callback(null, usable);
          else callback(null, usable[0].address, usable[0].family);
        },
        (error: NodeJS.ErrnoException) => callback(error, '', 0),
      );
    };
  }
}

class AddressRefusedError extends Error {}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA', 'ENODATA', 'ESERVFAIL', 'ENONAME']);
/** OpenSSL's certificate verdicts and Node's TLS errors. */
const TLS_CODE = /CERT|TLS|SSL|^EPROTO$/;

/** The category of a failed request; anything not recognised is a failed connection. */
function categoryOf(error: unknown): DeliveryFailure {
  const e = error as (Error & { code?: unknown }) | undefined;
  if (e?.name === 'AbortError' || e?.name === 'TimeoutError') return 'timeout';
  if (e instanceof AddressRefusedError) return 'connection_refused';
  const code = typeof e?.code === 'string' ? e.code : '';
  if (DNS_CODES.has(code)) return 'dns';
  if (TLS_CODE.test(code)) return 'tls';
  return 'connection_refused';
}
