/**
 * A partner's first afternoon, as code: every step of an integration against a running
 * service's sandbox, printed as it goes, through the partner SDK (sdk/, the package
 * `@partner-reading/sdk`): it fetches and renews the token, retries 429 and 503, verifies
 * webhooks and reads the event feed. Its methods and types are generated from the service's
 * OpenAPI document, so a change of the document that this code does not follow fails to compile.
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
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { text } from 'node:stream/consumers';
import { ConnectionError, PartnerClient, verifyWebhook, type PartnerEvent, type VerifiedWebhook } from '../../sdk/src/index.js'; // partners: '@partner-reading/sdk'

const BASE_URL = (process.env.BASE_URL ?? 'http://localhost:3000').replace(/\/$/, '');
const SUBSCRIBER = `quickstart-${Date.now()}`;

let stepNumber = 0;
function step(title: string, detail?: unknown): void {
  stepNumber += 1;
  console.log(`\n${stepNumber}. ${title}`);
  if (detail !== undefined) console.log(`   ${JSON.stringify(detail)}`);
}

function sandboxCredential(): { client_id: string; client_secret: string } {
  if (process.env.CLIENT_ID && process.env.CLIENT_SECRET) return { client_id: process.env.CLIENT_ID, client_secret: process.env.CLIENT_SECRET };
  const output = execFileSync('npm', ['run', '--silent', 'cli', '--', 'partner:create', '--name', 'Quickstart partner', '--sandbox'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(output);
}

type Delivery = { headers: IncomingHttpHeaders; body: string };
/** What a delivery's body says, to pick the one awaited (its signature is verified after). */
type Announced = { event: string; data: { chapter_number?: number; subscriber_id?: string } };

/** A local receiver for webhooks: `next(matches)` resolves with the first delivery whose body matches. */
async function webhookReceiver(): Promise<{ url: string; next(matches: (body: Announced) => boolean): Promise<Delivery>; close(): void }> {
  const deliveries: Delivery[] = [];
  const waiting: { matches: (body: Announced) => boolean; resolve: (delivery: Delivery) => void }[] = [];
  const bodyOf = (delivery: Delivery) => JSON.parse(delivery.body) as Announced;
  const server = createServer(async (request, response) => {
    // The raw body, as received: the signature covers these exact bytes.
    const delivery = { headers: request.headers, body: await text(request) };
    response.writeHead(204).end();
    deliveries.push(delivery);
    for (const waiter of waiting.filter((w) => w.matches(bodyOf(delivery)))) waiter.resolve(delivery);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    next: (matches) =>
      new Promise<Delivery>((resolve) => {
        const delivered = deliveries.find((delivery) => matches(bodyOf(delivery)));
        if (delivered) resolve(delivered);
        else waiting.push({ matches, resolve });
      }),
    close: () => server.close(),
  };
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no ${what} within ${ms / 1000} s`)), ms))),
  ]).finally(() => clearTimeout(timer));
}

async function main(): Promise<void> {
  const credential = sandboxCredential();
  step('Sandbox credential', { client_id: credential.client_id });

  // One client per environment and credential: it gets the token (HTTP Basic), caches it and renews it before expiry.
  const sdk = new PartnerClient({ environment: 'sandbox', baseUrl: BASE_URL, clientId: credential.client_id, clientSecret: credential.client_secret });
  const token = await sdk.accessToken();
  step('Access token from POST /platform/v1/oauth2/token (HTTP Basic), cached by the SDK', { token: `${token.slice(0, 24)}…`, expires_in: 600 });

  await sdk.upsertEntitlement({ body: { subscriber_id: SUBSCRIBER, product: 'audioapp', status: 'active', plan: 'audio_standard' } });
  step('Entitlement: audioapp active for our subscriber', { subscriber_id: SUBSCRIBER });

  const receiver = await webhookReceiver();
  let endpointId: string | undefined;
  try {
    const endpoint = await sdk.createWebhookEndpoint({ body: { url: receiver.url, events: ['novel.finished', 'chapter.unlocked'] } });
    endpointId = endpoint.id;
    // The secret is shown this once: a real integration stores it with its other secrets.
    step('Webhook endpoint registered for novel.finished and chapter.unlocked', { url: receiver.url, id: endpoint.id, events: endpoint.events });
    await readAndFinish(sdk, endpoint.secret, receiver);
    await watchTheDrip(sdk, endpoint.secret, receiver);
  } finally {
    receiver.close();
    if (endpointId) {
      await sdk.deleteWebhookEndpoint({ path: { id: endpointId } });
      step('Deleted the webhook endpoint, so no later event is sent to this closed receiver', { id: endpointId });
    }
  }
  console.log('\nQuickstart complete.');
}

async function readAndFinish(sdk: PartnerClient<'sandbox'>, secret: string, receiver: Awaited<ReturnType<typeof webhookReceiver>>): Promise<void> {
  // A sandbox client sends listNovels to /sandbox/v1/novels (its operation sandboxListNovels).
  const catalog = await sdk.listNovels({ query: { has_audio: 'true' } });
  const novel = catalog.data[0];
  if (!novel) throw new Error('The sandbox catalog has no novel with audio');
  step('Catalog: GET /sandbox/v1/novels?has_audio=true', { total: catalog.total, first: novel.title });

  // Started 30 days ago (sandbox only), so the drip has released every chapter by now.
  const startedAt = new Date(Date.now() - 30 * 86_400_000).toISOString();
  await sdk.openNovel({ path: { id: SUBSCRIBER }, body: { novel_id: novel.id, started_at: startedAt } });
  step('Opened the novel, backdated with started_at', { novel_id: novel.id, started_at: startedAt });

  const novelAndReader = { path: { id: novel.id }, query: { subscriber_id: SUBSCRIBER } };
  const chapters = await sdk.listChapters(novelAndReader);
  step(
    'Chapters with their release state',
    chapters.chapters.map((c) => `${c.chapter_number}:${c.status}`),
  );

  const chapterOne = { path: { id: novel.id, chapterNumber: 1 }, query: { subscriber_id: SUBSCRIBER } };
  const content = await sdk.getChapterContent(chapterOne);
  step('Chapter 1 text (markdown)', `${content.title}: ${content.body.slice(0, 60).replace(/\n/g, ' ')}…`);

  const stream = await sdk.getStreamUrl(chapterOne);
  step('Signed stream URL', { expires_in: stream.expires_in, format: stream.format, duration_seconds: stream.duration_seconds });

  // The stream URL is signed and carries no token: a plain GET (a player would do the same).
  const audio = await fetch(stream.stream_url).catch((error: Error) => {
    throw new Error(`GET ${stream.stream_url} failed: ${error.message}`);
  });
  const bytes = Buffer.from(await audio.arrayBuffer());
  if (audio.status !== 200 || bytes.length === 0) throw new Error(`GET ${stream.stream_url} answered ${audio.status}`);
  step('Downloaded the narration', { bytes: bytes.length, content_type: audio.headers.get('content-type') });

  const position = await sdk.putPlaybackPosition({
    path: { id: SUBSCRIBER },
    body: { novel_id: novel.id, chapter_id: `${novel.id}-ch1`, position_seconds: 42 },
  });
  step('Saved the listening position', position);

  const endings = await sdk.getEndingsState(novelAndReader);
  if (!endings.available) throw new Error('Endings are not available although the novel was backdated');
  const choice = endings.choices[0];
  if (!choice) throw new Error('The novel offers no ending to choose');
  await sdk.chooseEnding({ path: { id: novel.id }, body: { subscriber_id: SUBSCRIBER, choice_id: choice.choice_id } });
  step('Chose an ending, finishing the novel', { choice_id: choice.choice_id, label: choice.label });

  const received = await within(
    receiver.next((body) => body.event === 'novel.finished'),
    30_000,
    'novel.finished webhook',
  );
  const event: VerifiedWebhook = verifyWebhook(secret, received.body, received.headers);
  if (event.event !== 'novel.finished') throw new Error(`expected novel.finished, got ${event.event}`);
  if (event.seq === undefined) throw new Error('the delivery has no webhook-sequence header');
  step('Received novel.finished and verified its Standard Webhooks signature', { event: event.event, seq: event.seq, data: event.data });

  // The event feed holds the same events in order: a receiver that was down reads on from its last seq.
  let fromFeed: PartnerEvent | undefined;
  for await (const item of sdk.events({ after: event.seq - 1, follow: false })) {
    fromFeed = item;
    break;
  }
  if (fromFeed?.event_id !== event.event_id) throw new Error(`GET /platform/v1/events does not list event ${event.event_id} at seq ${event.seq}`);
  step('Read the same novel.finished from the event feed', { seq: fromFeed.seq, event: fromFeed.event, event_id: fromFeed.event_id });
}

/**
 * A sandbox test clock: "now" for the subscribers attached to it. A new subscriber opens a
 * novel at the clock's time; advancing the clock to chapter 3's release unlocks it, and
 * its chapter.unlocked reaches the receiver. Deleting the clock deletes the subscriber's
 * sandbox data with it.
 */
async function watchTheDrip(sdk: PartnerClient<'sandbox'>, secret: string, receiver: Awaited<ReturnType<typeof webhookReceiver>>): Promise<void> {
  const reader = `${SUBSCRIBER}-clock`;
  const clock = await sdk.createTestClock({ body: { frozen_time: new Date().toISOString(), name: 'quickstart' } });
  step('Test clock created (sandbox only)', { id: clock.id, frozen_time: clock.frozen_time });
  try {
    // Attached before its first entitlement: its whole history lives on the clock.
    await sdk.attachTestClockSubscriber({ path: { id: clock.id, subscriber_id: reader } });
    await sdk.upsertEntitlement({ body: { subscriber_id: reader, product: 'textapp', status: 'active' } });
    const { data } = await sdk.listNovels({ query: { page_size: 1 } });
    const novelId = data[0]?.id;
    if (!novelId) throw new Error('The sandbox catalog has no novel');
    await sdk.openNovel({ path: { id: reader }, body: { novel_id: novelId } });
    const chapters = { path: { id: novelId }, query: { subscriber_id: reader } };
    const chapterThree = (await sdk.listChapters(chapters)).chapters[2];
    if (chapterThree?.status !== 'locked' || !chapterThree.unlocks_at) throw new Error(`chapter 3 should be locked on opening, is ${chapterThree?.status}`);
    step('A subscriber on the clock opened a novel: chapter 3 is locked', { subscriber_id: reader, novel_id: novelId, unlocks_at: chapterThree.unlocks_at });

    await sdk.advanceTestClock({ path: { id: clock.id }, body: { frozen_time: chapterThree.unlocks_at } });
    const released = (await sdk.listChapters(chapters)).chapters[2];
    step('Advanced the clock to that instant: chapter 3 is released', { chapter: 3, status: released?.status });
    const delivery = await within(
      receiver.next((body) => body.event === 'chapter.unlocked' && body.data.subscriber_id === reader && body.data.chapter_number === 3),
      30_000,
      'chapter.unlocked webhook for chapter 3',
    );
    const event = verifyWebhook(secret, delivery.body, delivery.headers);
    step('Received chapter.unlocked for chapter 3, verified, at the release instant', { occurred_at: event.occurred_at, data: event.data });
  } finally {
    await sdk.deleteTestClock({ path: { id: clock.id } });
    step("Deleted the test clock, and the clock subscriber's sandbox data with it", { id: clock.id });
  }
}

main().catch((error) => {
  const hint = error instanceof ConnectionError ? ` Is the service running at BASE_URL=${BASE_URL}?` : '';
  console.error(`\nQuickstart failed: ${error.message}${hint}`);
  process.exit(1);
});
