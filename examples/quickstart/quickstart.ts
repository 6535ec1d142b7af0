/**
 * A partner's first afternoon, as code: every step of an integration against a running
 * service's sandbox, printed as it goes.
 *
 *   npm start                      # in another terminal
 *   npm run quickstart             # BASE_URL=http://localhost:3000 by default
 *
 * Uses CLIENT_ID and CLIENT_SECRET (a sandbox credential) when set; otherwise creates one
 * with the operations CLI, as `npm run cli -- partner:create --sandbox` would.
 */
import { execFileSync } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

const BASE_URL = (process.env.BASE_URL ?? 'http://localhost:3000').replace(/\/$/, '');
const PLATFORM = `${BASE_URL}/platform/v1`;
const SANDBOX = `${BASE_URL}/sandbox/v1`;
const SUBSCRIBER = `quickstart-${Date.now()}`;

let stepNumber = 0;
function step(title: string, detail?: unknown): void {
  stepNumber += 1;
  console.log(`\n${stepNumber}. ${title}`);
  if (detail !== undefined) console.log(`   ${JSON.stringify(detail)}`);
}

async function call<T>(method: string, url: string, token: string | null, body?: unknown, expected = [200]): Promise<T> {
  const response = await fetch(url, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  if (!expected.includes(response.status)) throw new Error(`${method} ${url} answered ${response.status}: ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

function sandboxCredential(): { client_id: string; client_secret: string } {
  if (process.env.CLIENT_ID && process.env.CLIENT_SECRET) return { client_id: process.env.CLIENT_ID, client_secret: process.env.CLIENT_SECRET };
  const output = execFileSync('npm', ['run', '--silent', 'cli', '--', 'partner:create', '--name', 'Quickstart partner', '--sandbox'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  return JSON.parse(output);
}

async function token(credential: { client_id: string; client_secret: string }): Promise<string> {
  const basic = Buffer.from(`${encodeURIComponent(credential.client_id)}:${encodeURIComponent(credential.client_secret)}`).toString('base64');
  const response = await fetch(`${PLATFORM}/oauth2/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  if (response.status !== 200) throw new Error(`token request answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

/** A local receiver for the webhook: resolves with the first delivery. */
async function webhookReceiver(): Promise<{ url: string; delivery: Promise<{ headers: IncomingMessage['headers']; body: string }>; close(): void }> {
  let deliver!: (value: { headers: IncomingMessage['headers']; body: string }) => void;
  const delivery = new Promise<{ headers: IncomingMessage['headers']; body: string }>((resolve) => (deliver = resolve));
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      response.writeHead(204).end();
      deliver({ headers: request.headers, body });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`, delivery, close: () => server.close() };
}

async function main(): Promise<void> {
  const credential = sandboxCredential();
  step('Sandbox credential', { client_id: credential.client_id });

  const accessToken = await token(credential);
  step('Access token from POST /platform/v1/oauth2/token (HTTP Basic)', { token: `${accessToken.slice(0, 24)}…`, expires_in: 600 });

  await call('POST', `${PLATFORM}/entitlements`, accessToken, { subscriber_id: SUBSCRIBER, product: 'audioapp', status: 'active', plan: 'audio_standard' });
  step('Entitlement: audioapp active for our subscriber', { subscriber_id: SUBSCRIBER });

  const receiver = await webhookReceiver();
  const endpoint = await call<{ id: string; secret: string }>('POST', `${PLATFORM}/webhook-endpoints`, accessToken, { url: receiver.url, events: ['novel.finished'] }, [201]);
  step('Webhook endpoint registered for novel.finished', { url: receiver.url, id: endpoint.id });

  const catalog = await call<{ data: { id: string; title: string; total_chapters: number; has_audio: boolean }[]; total: number }>('GET', `${SANDBOX}/novels?has_audio=true`, accessToken);
  const novel = catalog.data[0];
  if (!novel) throw new Error('The sandbox catalog has no novel with audio');
  step('Catalog: GET /sandbox/v1/novels?has_audio=true', { total: catalog.total, first: novel.title });

  // Started 30 days ago (sandbox only), so the drip has released every chapter by now.
  const startedAt = new Date(Date.now() - 30 * 86_400_000).toISOString();
  await call('POST', `${SANDBOX}/subscribers/${SUBSCRIBER}/novels`, accessToken, { novel_id: novel.id, started_at: startedAt }, [201]);
  step('Opened the novel, backdated with started_at', { novel_id: novel.id, started_at: startedAt });

  const chapters = await call<{ chapters: { chapter_number: number; title: string; status: string }[] }>('GET', `${SANDBOX}/novels/${novel.id}/chapters?subscriber_id=${SUBSCRIBER}`, accessToken);
  step('Chapters with their release state', chapters.chapters.map((c) => `${c.chapter_number}:${c.status}`));

  const content = await call<{ title: string; body: string }>('GET', `${SANDBOX}/novels/${novel.id}/chapters/1/content?subscriber_id=${SUBSCRIBER}`, accessToken);
  step('Chapter 1 text (markdown)', `${content.title}: ${content.body.slice(0, 60).replace(/\n/g, ' ')}…`);

  const stream = await call<{ stream_url: string; expires_in: number; format: string; duration_seconds: number | null }>('GET', `${SANDBOX}/novels/${novel.id}/chapters/1/stream?subscriber_id=${SUBSCRIBER}`, accessToken);
  step('Signed stream URL', { expires_in: stream.expires_in, format: stream.format, duration_seconds: stream.duration_seconds });

  const audio = await fetch(stream.stream_url);
  const bytes = Buffer.from(await audio.arrayBuffer());
  if (audio.status !== 200 || bytes.length === 0) throw new Error(`downloading the audio answered ${audio.status}`);
  step('Downloaded the narration', { bytes: bytes.length, content_type: audio.headers.get('content-type') });

  const position = await call('PUT', `${SANDBOX}/subscribers/${SUBSCRIBER}/playback-position`, accessToken, { novel_id: novel.id, chapter_id: `${novel.id}-ch1`, position_seconds: 42 });
  step('Saved the listening position', position);

  const endings = await call<{ available: boolean; choices: { choice_id: string; label: string }[] }>('GET', `${SANDBOX}/novels/${novel.id}/choices?subscriber_id=${SUBSCRIBER}`, accessToken);
  if (!endings.available) throw new Error('Endings are not available although the novel was backdated');
  const choice = endings.choices[0];
  await call('POST', `${SANDBOX}/novels/${novel.id}/choices`, accessToken, { subscriber_id: SUBSCRIBER, choice_id: choice.choice_id });
  step('Chose an ending, finishing the novel', { choice_id: choice.choice_id, label: choice.label });

  let timer: NodeJS.Timeout | undefined;
  const received = await Promise.race([
    receiver.delivery,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('no webhook within 30 s')), 30_000))),
  ]).finally(() => clearTimeout(timer));
  const event = new Webhook(endpoint.secret).verify(received.body, received.headers as Record<string, string>) as { event: string; data: unknown };
  receiver.close();
  step('Received novel.finished and verified its Standard Webhooks signature', { event: event.event, data: event.data });

  console.log('\nQuickstart complete.');
}

main().catch((error) => {
  console.error(`\nQuickstart failed: ${error.message}`);
  process.exit(1);
});
