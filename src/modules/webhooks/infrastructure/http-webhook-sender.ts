import { Inject, Injectable } from '@nestjs/common';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { AppConfig } from '../../../config/app-config.js';
import { checkEndpointUrl, refusedAddresses } from '../domain/endpoint-url-policy.js';
import { HostResolver } from '../domain/host-resolver.js';
import { WebhookSender, type OutgoingWebhook, type SendResult } from '../domain/webhook-sender.js';

/**
 * POSTs deliveries with node:http(s). In production the URL policy is applied again at
 * every attempt, and the addresses of the host are checked inside the connection's own DNS
 * lookup: the address checked is the address connected to, so a name that re-resolves to
 * a private address after registration (DNS rebinding) is refused. Redirects are never
 * followed (node:http does not), so a 3xx cannot lead the request elsewhere.
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
    const check = checkEndpointUrl(webhook.url, this.config.webhookAllowInsecureUrls);
    if (!check.ok) return { statusCode: null, durationMs: elapsed(), error: `refused: ${check.reason}` };
    try {
      const statusCode = await this.post(check.url, webhook);
      const redirect = statusCode >= 300 && statusCode < 400;
      return { statusCode, durationMs: elapsed(), error: redirect ? 'redirects are not followed' : null };
    } catch (error) {
      return { statusCode: null, durationMs: elapsed(), error: this.describe(error) };
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
        lookup: this.config.webhookAllowInsecureUrls ? undefined : this.publicOnlyLookup,
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

  private readonly publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
    this.resolver.addressesOf(hostname).then(
      (addresses) => {
        const refusal = refusedAddresses(hostname, addresses);
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

  private describe(error: unknown): string {
    const e = error as Error & { cause?: unknown };
    if (e?.name === 'AbortError' || e?.name === 'TimeoutError') return `timed out after ${this.config.webhookTimeoutMs} ms`;
    if (e instanceof AddressRefusedError) return `refused: ${e.message}`;
    return e?.message || String(error);
  }
}

class AddressRefusedError extends Error {}
