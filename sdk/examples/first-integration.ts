// A first integration on the SDK, against a sandbox credential (it compiles under TypeScript's strictest settings):
// BASE_URL=http://localhost:3000 CLIENT_ID=sbx_… CLIENT_SECRET=… npm run example:first-integration
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { text } from 'node:stream/consumers';
import { PartnerClient, fileCheckpoint, verifyWebhook, type VerifiedWebhook } from '@partner-reading/sdk';
const { BASE_URL = 'http://localhost:3000', CLIENT_ID = '', CLIENT_SECRET = '' } = process.env;
const sdk = new PartnerClient({ environment: 'sandbox', baseUrl: BASE_URL, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
const reader = `reader-${Date.now()}`;
let secret = ''; // Webhooks: verify each delivery with the endpoint's secret, answer 400 to anything that does not verify.
let received: (event: VerifiedWebhook) => void = () => undefined;
const finished = new Promise<VerifiedWebhook>((resolve) => (received = resolve));
const receiver = createServer(async (request, response) => {
  const event = await text(request)
    .then((body) => verifyWebhook(secret, body, request.headers))
    .catch(() => undefined);
  response.writeHead(event ? 204 : 400).end();
  if (event) received(event);
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
const endpoint = await sdk.createWebhookEndpoint({ body: { url, events: ['novel.finished'] } }); // token fetched and cached for you
secret = endpoint.secret;
await sdk.upsertEntitlement({ body: { subscriber_id: reader, product: 'audioapp', status: 'active', plan: 'audio_standard' } });
const [novel] = (await sdk.listNovels({ query: { has_audio: 'true', page_size: 5 } })).data;
if (!novel) throw new Error('the catalog has no novel with audio');
const started_at = new Date(Date.now() - 30 * 86_400_000).toISOString(); // sandbox only: every chapter released by now
await sdk.openNovel({ path: { id: reader }, body: { novel_id: novel.id, started_at } });
const progress = (await sdk.getReadingProgress({ path: { id: reader } })).novels.find((entry) => entry.novel_id === novel.id);
const stream = await sdk.getStreamUrl({ path: { id: novel.id, chapterNumber: 1 }, query: { subscriber_id: reader } });
console.log('reading', novel.id, `${progress?.unlocked_chapters}/${progress?.total_chapters} unlocked`, 'stream', stream.stream_url.split('?')[0]);
const [choice] = (await sdk.getEndingsState({ path: { id: novel.id }, query: { subscriber_id: reader } })).choices;
if (choice) await sdk.chooseEnding({ path: { id: novel.id }, body: { subscriber_id: reader, choice_id: choice.choice_id } }); // retried safely: one Idempotency-Key
const event = await finished;
if (event.event === 'novel.finished') console.log('webhook', event.event, event.data.novel_id, 'seq', event.seq);
// The feed after the last seq processed (kept in feed.seq): each event once, across restarts.
for await (const item of sdk.events({ checkpoint: fileCheckpoint('feed.seq'), follow: false })) console.log('feed', item.seq, item.event, item.event_id);
await sdk.deleteWebhookEndpoint({ path: { id: endpoint.id } });
receiver.close();
