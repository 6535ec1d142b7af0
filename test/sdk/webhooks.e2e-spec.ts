import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { text } from 'node:stream/consumers';
import { verifyWebhook as verifyOnEdge } from '../../sdk/src/edge.js';
import {
  ApiError,
  NotFoundError,
  verifyWebhook,
  WebhookVerificationError,
  type PartnerClient,
  type PartnerEvent,
  type VerifiedWebhook,
} from '../../sdk/src/index.js';
import { createCredential, finishANovel, sandboxClient, serviceEnv, startService, waitFor, type Service } from './sdk-test-kit.js';

/** verifyWebhook on real deliveries of the service: typed events with their seq, and refusals of anything altered. */
let service: Service;
let client: PartnerClient<'sandbox'>;
let server: Server;
const deliveries: { headers: IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  service = await startService(await serviceEnv());
  client = sandboxClient(service.origin, await createCredential(service.env));
  server = createServer(async (request, response) => {
    deliveries.push({ headers: request.headers, body: await text(request) });
    response.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
}, 90_000);

afterAll(async () => {
  server?.close();
  await service?.stop();
});

test('verifies real deliveries of novel.finished into typed events whose seq is the feed position', async () => {
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  const endpoint = await client.createWebhookEndpoint({ body: { url, events: ['novel.finished'] } });
  for (const subscriber of ['hook-1', 'hook-2', 'hook-3']) await finishANovel(client, subscriber);
  await waitFor(() => deliveries.length >= 3, 'three deliveries');

  const events: VerifiedWebhook[] = deliveries.map((delivery) => verifyWebhook(endpoint.secret, delivery.body, delivery.headers));
  const subscribers = events.map((event) => (event.event === 'novel.finished' ? event.data.subscriber_id : undefined));
  expect(new Set(subscribers)).toEqual(new Set(['hook-1', 'hook-2', 'hook-3']));
  for (const [index, event] of events.entries()) {
    expect(event.event_id).toBe(deliveries[index].headers['webhook-id']);
    expect(event.seq).toBe(Number(deliveries[index].headers['webhook-sequence']));
  }

  // The same events, with the same seq, from the feed.
  const feed: PartnerEvent[] = [];
  for await (const item of client.events({ follow: false })) feed.push(item);
  expect(feed.map((item) => item.seq)).toEqual([1, 2, 3]);
  expect(events.map(({ seq, event_id }) => ({ seq, event_id })).sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0))).toEqual(
    feed.map(({ seq, event_id }) => ({ seq, event_id })),
  );
  expect(feed.map((item) => item.event)).toEqual(['novel.finished', 'novel.finished', 'novel.finished']);

  // A fetch Headers object (a Fetch API server, say) and a Buffer body verify as well.
  const [first] = deliveries;
  const headers = new Headers(Object.entries(first.headers).map(([name, value]) => [name, String(value)] as [string, string]));
  expect(verifyWebhook(endpoint.secret, Buffer.from(first.body), headers)).toEqual(events[0]);
  await client.deleteWebhookEndpoint({ path: { id: endpoint.id } });
});

test('refuses an altered body, another secret, a missing header or an old timestamp', async () => {
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/refusals`;
  const endpoint = await client.createWebhookEndpoint({ body: { url, events: ['novel.finished'] } });
  const other = await client.createWebhookEndpoint({ body: { url: `${url}-other`, events: ['chapter.unlocked'] } });
  const before = deliveries.length;
  await finishANovel(client, 'hook-refusals');
  await waitFor(() => deliveries.length > before, 'the delivery');
  const { headers, body } = deliveries[deliveries.length - 1];

  expect(verifyWebhook(endpoint.secret, body, headers).event).toBe('novel.finished');
  const refusal = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      return error;
    }
    return undefined;
  };
  expect(refusal(() => verifyWebhook(endpoint.secret, body.replace('hook-refusals', 'hook-forged'), headers))).toBeInstanceOf(WebhookVerificationError);
  expect(refusal(() => verifyWebhook(other.secret, body, headers))).toBeInstanceOf(WebhookVerificationError);
  expect(refusal(() => verifyWebhook(endpoint.secret, body, { ...headers, 'webhook-signature': undefined }))).toBeInstanceOf(WebhookVerificationError);
  expect(refusal(() => verifyWebhook(endpoint.secret, body, { ...headers, 'webhook-sequence': 'x1' }))).toBeInstanceOf(WebhookVerificationError);
  const stale = String(Number(headers['webhook-timestamp']) - 600);
  expect(refusal(() => verifyWebhook(endpoint.secret, body, { ...headers, 'webhook-timestamp': stale }))).toBeInstanceOf(WebhookVerificationError);
  // webhook-sequence is not signed: a delivery without it verifies, without a seq.
  const unsequenced = verifyWebhook(endpoint.secret, body, { ...headers, 'webhook-sequence': undefined });
  expect(unsequenced).toMatchObject({ event: 'novel.finished', event_id: headers['webhook-id'], seq: undefined });

  // The edge entry's Web Crypto verification gives the same answers.
  await expect(verifyOnEdge(endpoint.secret, body, headers)).resolves.toEqual(verifyWebhook(endpoint.secret, body, headers));
  await expect(verifyOnEdge(endpoint.secret, new TextEncoder().encode(body), headers)).resolves.toEqual(verifyWebhook(endpoint.secret, body, headers));
  await expect(verifyOnEdge(endpoint.secret, body, { ...headers, 'webhook-sequence': undefined })).resolves.toEqual(unsequenced);
  for (const [secret, refusedBody, refusedHeaders] of [
    [endpoint.secret, body.replace('hook-refusals', 'hook-forged'), headers],
    [other.secret, body, headers],
    [endpoint.secret, body, { ...headers, 'webhook-signature': undefined }],
    [endpoint.secret, body, { ...headers, 'webhook-sequence': 'x1' }],
    [endpoint.secret, body, { ...headers, 'webhook-timestamp': stale }],
  ] as const) {
    await expect(verifyOnEdge(secret, refusedBody, refusedHeaders)).rejects.toBeInstanceOf(WebhookVerificationError);
  }

  await client.deleteWebhookEndpoint({ path: { id: endpoint.id } });
  await client.deleteWebhookEndpoint({ path: { id: other.id } });
  // A deleted endpoint is gone: the contract's error, with the answer's request id.
  const gone = await client.deleteWebhookEndpoint({ path: { id: endpoint.id } }).catch((error: unknown) => error);
  expect(gone).toBeInstanceOf(ApiError);
  expect(gone).toBeInstanceOf(NotFoundError);
  expect(gone).toMatchObject({ status: 404, error: 'not_found', requestId: expect.any(String), errorDescription: expect.any(String) });
});
