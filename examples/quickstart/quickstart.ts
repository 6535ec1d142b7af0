/**
 * A partner's first afternoon, as code: every step of an integration against a running
 * service's sandbox, printed as it goes, through a client generated from the service's
 * OpenAPI document (api.d.ts, by openapi-typescript; requests by openapi-fetch). A change of
 * the document that this code does not follow fails to compile.
 *
 *   npm start                      # in another terminal
 *   npm run quickstart
 *
 * Settings (environment variables, also in the README and docs/partner-guide.md):
 *   BASE_URL        the service, default http://localhost:3000. The quickstart's webhook
 *                   receiver listens on 127.0.0.1, so the service must run on this machine.
 *   CLIENT_ID, CLIENT_SECRET
 *                   a sandbox credential; when unset, one is created with the operations
 *                   CLI, as `npm run cli -- partner:create --sandbox` would.
 *
 * It deletes the webhook endpoint it registered, also when a step fails.
 */
import { execFileSync } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import createClient, { type Middleware } from 'openapi-fetch';
import { Webhook } from 'standardwebhooks';
import type { paths } from './api.js';

const BASE_URL = (process.env.BASE_URL ?? 'http://localhost:3000').replace(/\/$/, '');
const SUBSCRIBER = `quickstart-${Date.now()}`;

let stepNumber = 0;
function step(title: string, detail?: unknown): void {
  stepNumber += 1;
  console.log(`\n${stepNumber}. ${title}`);
  if (detail !== undefined) console.log(`   ${JSON.stringify(detail)}`);
}

/** fetch, failing with the URL and the reason rather than a bare "fetch failed". */
async function fetchNaming(request: Request): Promise<Response> {
  try {
    return await fetch(request);
  } catch (error) {
    const reason = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
    throw new Error(`${request.method} ${request.url} failed: ${reason}. Is the service running at BASE_URL=${BASE_URL}?`);
  }
}

const api = createClient<paths>({ baseUrl: BASE_URL, fetch: fetchNaming });

/** Bearer authentication once we hold a token; the token request itself uses HTTP Basic. */
let accessToken: string | undefined;
const bearer: Middleware = {
  onRequest({ request }) {
    if (accessToken && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${accessToken}`);
    return request;
  },
};
api.use(bearer);

/** The data of a successful answer, or an error naming the request and the service's answer. */
function expectOk<T>(result: { data?: T; error?: unknown; response: Response }, expected = [200]): T {
  const { response } = result;
  if (!expected.includes(response.status)) {
    throw new Error(`${response.url} answered ${response.status}: ${JSON.stringify(result.error)}`);
  }
  return result.data as T;
}

function sandboxCredential(): { client_id: string; client_secret: string } {
  if (process.env.CLIENT_ID && process.env.CLIENT_SECRET) return { client_id: process.env.CLIENT_ID, client_secret: process.env.CLIENT_SECRET };
  const output = execFileSync('npm', ['run', '--silent', 'cli', '--', 'partner:create', '--name', 'Quickstart partner', '--sandbox'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  return JSON.parse(output);
}

async function token(credential: { client_id: string; client_secret: string }): Promise<string> {
  const basic = Buffer.from(`${encodeURIComponent(credential.client_id)}:${encodeURIComponent(credential.client_secret)}`).toString('base64');
  const result = await api.POST('/platform/v1/oauth2/token', {
    body: { grant_type: 'client_credentials' },
    bodySerializer: (body) => new URLSearchParams(body as Record<string, string>).toString(),
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
  });
  return expectOk(result).access_token;
}

type Delivery = { headers: IncomingMessage['headers']; body: string };

/** A local receiver for webhooks: `next(type)` resolves with the first delivery of that event. */
async function webhookReceiver(): Promise<{ url: string; next(event: string): Promise<Delivery>; close(): void }> {
  const deliveries: Delivery[] = [];
  const waiting: { event: string; resolve: (delivery: Delivery) => void }[] = [];
  const eventOf = (delivery: Delivery) => (JSON.parse(delivery.body) as { event: string }).event;
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      response.writeHead(204).end();
      const delivery = { headers: request.headers, body };
      deliveries.push(delivery);
      for (const waiter of waiting.filter((w) => w.event === eventOf(delivery))) waiter.resolve(delivery);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    next: (event) =>
      new Promise<Delivery>((resolve) => {
        const delivered = deliveries.find((delivery) => eventOf(delivery) === event);
        if (delivered) resolve(delivered);
        else waiting.push({ event, resolve });
      }),
    close: () => server.close(),
  };
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no ${what} within ${ms / 1000} s`)), ms)))]).finally(() =>
    clearTimeout(timer),
  );
}

async function main(): Promise<void> {
  const credential = sandboxCredential();
  step('Sandbox credential', { client_id: credential.client_id });

  accessToken = await token(credential);
  step('Access token from POST /platform/v1/oauth2/token (HTTP Basic)', { token: `${accessToken.slice(0, 24)}…`, expires_in: 600 });

  expectOk(await api.POST('/platform/v1/entitlements', { body: { subscriber_id: SUBSCRIBER, product: 'audioapp', status: 'active', plan: 'audio_standard' } }));
  step('Entitlement: audioapp active for our subscriber', { subscriber_id: SUBSCRIBER });

  const receiver = await webhookReceiver();
  let endpointId: string | undefined;
  try {
    const endpoint = expectOk(await api.POST('/platform/v1/webhook-endpoints', { body: { url: receiver.url, events: ['novel.finished', 'chapter.unlocked'] } }), [201]);
    endpointId = endpoint.id;
    // The secret is shown this once: a real integration stores it with its other secrets.
    step('Webhook endpoint registered for novel.finished and chapter.unlocked', { url: receiver.url, id: endpoint.id, events: endpoint.events });
    await readAndFinish(endpoint.secret, receiver);
  } finally {
    receiver.close();
    if (endpointId) {
      expectOk(await api.DELETE('/platform/v1/webhook-endpoints/{id}', { params: { path: { id: endpointId } } }), [204]);
      step('Deleted the webhook endpoint, so no later event is sent to this closed receiver', { id: endpointId });
    }
  }
  console.log('\nQuickstart complete.');
}

async function readAndFinish(secret: string, receiver: Awaited<ReturnType<typeof webhookReceiver>>): Promise<void> {
  const catalog = expectOk(await api.GET('/sandbox/v1/novels', { params: { query: { has_audio: 'true' } } }));
  const novel = catalog.data[0];
  if (!novel) throw new Error('The sandbox catalog has no novel with audio');
  step('Catalog: GET /sandbox/v1/novels?has_audio=true', { total: catalog.total, first: novel.title });

  // Started 30 days ago (sandbox only), so the drip has released every chapter by now.
  const startedAt = new Date(Date.now() - 30 * 86_400_000).toISOString();
  expectOk(await api.POST('/sandbox/v1/subscribers/{id}/novels', { params: { path: { id: SUBSCRIBER } }, body: { novel_id: novel.id, started_at: startedAt } }), [201]);
  step('Opened the novel, backdated with started_at', { novel_id: novel.id, started_at: startedAt });

  const novelAndReader = { params: { path: { id: novel.id }, query: { subscriber_id: SUBSCRIBER } } };
  const chapters = expectOk(await api.GET('/sandbox/v1/novels/{id}/chapters', novelAndReader));
  step('Chapters with their release state', chapters.chapters.map((c) => `${c.chapter_number}:${c.status}`));

  const chapterOne = { params: { path: { id: novel.id, chapterNumber: 1 }, query: { subscriber_id: SUBSCRIBER } } };
  const content = expectOk(await api.GET('/sandbox/v1/novels/{id}/chapters/{chapterNumber}/content', chapterOne));
  step('Chapter 1 text (markdown)', `${content.title}: ${content.body.slice(0, 60).replace(/\n/g, ' ')}…`);

  const stream = expectOk(await api.GET('/sandbox/v1/novels/{id}/chapters/{chapterNumber}/stream', chapterOne));
  step('Signed stream URL', { expires_in: stream.expires_in, format: stream.format, duration_seconds: stream.duration_seconds });

  const audio = await fetchNaming(new Request(stream.stream_url));
  const bytes = Buffer.from(await audio.arrayBuffer());
  if (audio.status !== 200 || bytes.length === 0) throw new Error(`GET ${stream.stream_url} answered ${audio.status}`);
  step('Downloaded the narration', { bytes: bytes.length, content_type: audio.headers.get('content-type') });

  const position = expectOk(
    await api.PUT('/sandbox/v1/subscribers/{id}/playback-position', {
      params: { path: { id: SUBSCRIBER } },
      body: { novel_id: novel.id, chapter_id: `${novel.id}-ch1`, position_seconds: 42 },
    }),
  );
  step('Saved the listening position', position);

  const endings = expectOk(await api.GET('/sandbox/v1/novels/{id}/choices', novelAndReader));
  if (!endings.available) throw new Error('Endings are not available although the novel was backdated');
  const choice = endings.choices[0];
  expectOk(await api.POST('/sandbox/v1/novels/{id}/choices', { params: { path: { id: novel.id } }, body: { subscriber_id: SUBSCRIBER, choice_id: choice.choice_id } }));
  step('Chose an ending, finishing the novel', { choice_id: choice.choice_id, label: choice.label });

  const received = await within(receiver.next('novel.finished'), 30_000, 'novel.finished webhook');
  const event = new Webhook(secret).verify(received.body, received.headers as Record<string, string>) as { event: string; event_id: string; data: unknown };
  step('Received novel.finished and verified its Standard Webhooks signature', { event: event.event, data: event.data });

  // The event feed holds the same events in order: a receiver that was down reads from here.
  const feed = expectOk(await api.GET('/platform/v1/events', { params: { query: { after: 0, limit: 100 } } }));
  const fromFeed = feed.data.find((item) => item.event_id === event.event_id);
  if (!fromFeed) throw new Error(`GET /platform/v1/events does not list event ${event.event_id}`);
  step('Read the same novel.finished from the event feed', { seq: fromFeed.seq, event: fromFeed.event, next_after: feed.next_after });
}

main().catch((error) => {
  console.error(`\nQuickstart failed: ${error.message}`);
  process.exit(1);
});
