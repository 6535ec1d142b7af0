import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebhookEventPublisher, type NovelFinishedEvent } from '../../src/modules/webhooks/index.js';
import type { IssuedCredential } from '../../src/modules/identity/index.js';
import { UnitOfWork } from '../../src/shared/persistence/unit-of-work.js';
import type { Tenant } from '../../src/shared/tenancy/tenant.js';
import { bearer, type TestApp } from '../support/test-app.js';

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

  private constructor(private readonly server: Server) {}

  static async start(): Promise<WebhookReceiver> {
    const server = createServer();
    const receiver = new WebhookReceiver(server);
    server.on('request', (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => receiver.handle({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') }, response));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
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
  return app.app.get(UnitOfWork).run(() =>
    publisher.novelFinished(tenant, { subscriber_id: subscriberId, novel_id: 'the-heir', choice_id: 'stay' }, new Date()),
  );
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
