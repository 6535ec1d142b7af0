import { createServer as createHttpServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { WebhookEventPublisher, type NovelFinishedEvent } from '../../src/modules/webhooks/index.js';
import type { IssuedCredential } from '../../src/modules/identity/index.js';
import { UnitOfWork } from '../../src/shared/persistence/unit-of-work.js';
import type { Tenant } from '../../src/shared/tenancy/tenant.js';
import { bearer, type TestApp } from '../support/test-app.js';

// A throwaway self-signed certificate for CN=localhost, made for these tests only.
const SELF_SIGNED_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQglXjqnH3BaW1+aoEH
jiWF0DrAmEjo9fNrdoDnVTvgpGChRANCAARY4rqpYmzHJs0sHSI170uQSpEb4Yph
hhgP0Lm8NI3AjkVK5lV4kFsgNeErNWFm86gv36H6podYYyC8f+3c0/5F
-----END PRIVATE KEY-----`;
const SELF_SIGNED_CERT = `-----BEGIN CERTIFICATE-----
MIIBfzCCASWgAwIBAgIUJ7DhwsRzgG9hcgLVuscyb0wYitUwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyMzIwMTYxNFoYDzIxMjYxMDMw
MjAxNjE0WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAARY4rqpYmzHJs0sHSI170uQSpEb4YphhhgP0Lm8NI3AjkVK5lV4kFsg
NeErNWFm86gv36H6podYYyC8f+3c0/5Fo1MwUTAdBgNVHQ4EFgQUL375BtgOohxH
QfCKwPvLNvfwAgYwHwYDVR0jBBgwFoAUL375BtgOohxHQfCKwPvLNvfwAgYwDwYD
VR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNIADBFAiEAs9lLBc52PMWMHdB6JNQV
jzrBHAjtO5EaGjHkDlnhKkQCIAGjHKYFX5NOPBc6gJc3lxLMsPIdqsHijsniaq6O
UI8Q
-----END CERTIFICATE-----`;

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** How the receiver answers a request: a status, optionally after a delay, or never. */
export type Answer = { status: number; delayMs?: number; headers?: Record<string, string> } | 'hang';

/** A partner's webhook receiver: a real HTTP server on 127.0.0.1 that records every request. */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private answer: (request: ReceivedWebhook, index: number) => Answer = () => ({ status: 200 });
  private readonly hanging = new Set<ServerResponse>();

  private constructor(
    private readonly server: Server,
    private readonly scheme: 'http' | 'https',
  ) {}

  /** Over https with a self-signed certificate (which no delivery should trust) when `tls`. */
  static async start(tls = false): Promise<WebhookReceiver> {
    const server: Server = tls ? createHttpsServer({ key: SELF_SIGNED_KEY, cert: SELF_SIGNED_CERT }) : createHttpServer();
    const receiver = new WebhookReceiver(server, tls ? 'https' : 'http');
    server.on('request', (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => receiver.handle({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') }, response));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  url(path = '/hook'): string {
    return `${this.scheme}://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  answerWith(answer: (request: ReceivedWebhook, index: number) => Answer): void {
    this.answer = answer;
  }

  /** Requests for one path (each test registers its own path). */
  at(path: string): ReceivedWebhook[] {
    return this.received.filter((request) => request.path === path);
  }

  async close(): Promise<void> {
    for (const response of this.hanging) response.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private handle(request: ReceivedWebhook, response: ServerResponse): void {
    const answer = this.answer(request, this.received.filter((r) => r.path === request.path).length);
    this.received.push(request);
    if (answer === 'hang') {
      this.hanging.add(response);
      return;
    }
    setTimeout(() => response.writeHead(answer.status, answer.headers).end(), answer.delayMs ?? 0);
  }
}

export const tenantOf = (credential: IssuedCredential): Tenant => ({ partnerId: credential.partner_id, environment: credential.environment });

/** Publishes novel.finished the way the reading module does: inside a unit of work. */
export function publishFinished(app: TestApp, tenant: Tenant, subscriberId = 'sub-1'): Promise<NovelFinishedEvent> {
  const publisher = app.app.get(WebhookEventPublisher);
  return app.app
    .get(UnitOfWork)
    .run(() => publisher.novelFinished(tenant, { subscriber_id: subscriberId, novel_id: 'the-heir', choice_id: 'stay' }, new Date()));
}

/** A partner with the webhook scope, its token, and an endpoint at `url`. */
export async function partnerWithEndpoint(app: TestApp, url: string, environment: 'live' | 'sandbox' = 'live') {
  const credential = await app.partner({ scopes: ['platform:webhooks:manage'], environment });
  const token = await app.token(credential);
  const created = await app.inject({
    method: 'POST',
    url: '/platform/v1/webhook-endpoints',
    headers: bearer(token),
    payload: { url, events: ['novel.finished'] },
  });
  if (created.statusCode !== 201) throw new Error(`endpoint registration failed: ${created.statusCode} ${created.body}`);
  const endpoint = created.json() as { id: string; url: string; events: string[]; created_at: string; secret: string };
  return { credential, token, tenant: tenantOf(credential), endpoint };
}

export async function waitFor(condition: () => boolean | Promise<boolean>, what: string | (() => string), timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await sleep(25);
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
