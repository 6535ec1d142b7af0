import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileCheckpoint, memoryCheckpoint, type PartnerClient, type PartnerEvent, type RetryEvent } from '../../sdk/src/index.js';
import { createCredential, finishANovel, sandboxClient, serviceEnv, startService, waitFor, type Service } from './sdk-test-kit.js';

/**
 * The iterators against the real service. Pages: every novel of the catalog once, in order,
 * whatever the page size. The feed: a consumer that long-polls across a restart of
 * the service (same port and database) sees every event once, in order; a consumer stopped
 * and started again from its checkpoint goes on where it stopped, with no duplicate.
 */
let service: Service;
let client: PartnerClient<'sandbox'>;
const retries: RetryEvent[] = [];
let subscribers = 0;
const produce = async (count: number) => {
  for (let i = 0; i < count; i += 1) await finishANovel(client, `feed-${(subscribers += 1)}`);
};

beforeAll(async () => {
  service = await startService(await serviceEnv());
  client = sandboxClient(service.origin, await createCredential(service.env), { onRetry: (event) => retries.push(event) });
}, 90_000);

afterAll(() => service?.stop());

test('a long-polling consumer sees every event once, in seq order, across a restart of the service', async () => {
  const seen: PartnerEvent[] = [];
  const checkpoint = memoryCheckpoint();
  const stop = new AbortController();
  const consumer = (async () => {
    for await (const event of client.events({ checkpoint, signal: stop.signal, wait: 10 })) seen.push(event);
  })();

  await produce(3);
  await waitFor(() => seen.length === 3, 'the first three events');

  // The service stops while the consumer waits in a long poll, and comes back on the same port and database.
  await service.stop();
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  service = await startService(service.env);
  await produce(3);
  await waitFor(() => seen.length >= 6, 'the events after the restart', 30_000);

  stop.abort();
  await consumer;
  expect(seen.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6]);
  expect(new Set(seen.map((event) => event.event_id)).size).toBe(6);
  expect(seen.every((event) => event.event === 'novel.finished')).toBe(true);
  expect(checkpoint.seq).toBe(6);
  // The outage was ridden out by retries (refused connections, or the 503 of a stopping service).
  expect(retries.some((event) => event.operationId === 'readEventFeed' && (event.reason === 'network' || event.reason === 'unavailable'))).toBe(true);

  // The consumer, started again from its checkpoint, reads on after 6: nothing twice.
  await produce(2);
  const resumed: number[] = [];
  for await (const event of client.events({ checkpoint, follow: false })) resumed.push(event.seq);
  expect(resumed).toEqual([7, 8]);
  expect(checkpoint.seq).toBe(8);
}, 90_000);

test('a consumer stopped mid-feed resumes from its file checkpoint with no gap and no duplicate', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'sdk-feed-')), 'feed.seq');
  const first: number[] = [];
  const stop = new AbortController();
  // Stops (between events) once it has processed seq 3.
  for await (const event of client.events({ checkpoint: fileCheckpoint(file), signal: stop.signal, limit: 2 })) {
    first.push(event.seq);
    if (event.seq === 3) stop.abort();
  }
  expect(first).toEqual([1, 2, 3]);
  expect(readFileSync(file, 'utf8')).toBe('3\n');

  const second: number[] = [];
  for await (const event of client.events({ checkpoint: fileCheckpoint(file), follow: false, limit: 2 })) second.push(event.seq);
  expect(second).toEqual([4, 5, 6, 7, 8]);
  expect(readFileSync(file, 'utf8')).toBe('8\n');
}, 60_000);

test('twelve consumers of one credential (the service holds ten long polls each): all get the next event', async () => {
  const stop = new AbortController();
  const refusedBefore = retries.filter((event) => event.reason === 'rate_limited').length;
  const received: number[][] = Array.from({ length: 12 }, () => []);
  const consumers = received.map(async (list) => {
    for await (const event of client.events({ after: 8, signal: stop.signal, wait: 5 })) {
      list.push(event.seq);
      if (list.length === 1) return;
    }
  });
  // Two of the twelve are refused 429 while ten wait (a time would not say when, on a loaded machine).
  const refused = () => retries.filter((event) => event.reason === 'rate_limited').length - refusedBefore;
  await waitFor(() => refused() >= 2, 'two of the twelve consumers refused 429');
  await produce(1);
  await Promise.all(consumers);
  stop.abort();
  // All twelve get it: the two refused came back after Retry-After.
  expect(received).toEqual(Array.from({ length: 12 }, () => [9]));
}, 60_000);

test("start: 'now' begins after the latest event, saves that start at once, and resumes from it; a saved checkpoint wins", async () => {
  // Nine events so far (the tests above): a consumer starting now sees none of them.
  const checkpoint = memoryCheckpoint();
  const caughtUp: number[] = [];
  for await (const event of client.events({ start: 'now', checkpoint, follow: false })) caughtUp.push(event.seq);
  expect(caughtUp).toEqual([]);
  expect(checkpoint.seq).toBe(9);

  await produce(2);
  const next: number[] = [];
  for await (const event of client.events({ start: 'now', checkpoint, follow: false })) next.push(event.seq);
  expect(next).toEqual([10, 11]);
  // A long-polling consumer started now waits for the next event only.
  const stop = new AbortController();
  const live: number[] = [];
  const started = memoryCheckpoint();
  const consumer = (async () => {
    for await (const event of client.events({ start: 'now', checkpoint: started, signal: stop.signal, wait: 5 })) {
      live.push(event.seq);
      stop.abort();
    }
  })();
  // It has found where 'now' is (and saved it) before the next event is written.
  await waitFor(() => started.seq === 11, "the consumer's start after 11");
  await produce(1);
  await consumer;
  expect(live).toEqual([12]);
}, 60_000);

test('novels() and paginate() yield every novel of the catalog once, in order, whatever the page size', async () => {
  const whole = await client.listNovels({ query: { page_size: 100 } });
  expect(whole.total).toBeGreaterThan(2);
  const byTwo: string[] = [];
  for await (const novel of client.paginate('listNovels', { query: { page_size: 2 } })) byTwo.push(novel.id);
  const all: string[] = [];
  for await (const novel of client.novels()) all.push(novel.id);
  expect(byTwo).toEqual(whole.data.map((novel) => novel.id));
  expect(all).toEqual(byTwo);
  const withAudio: string[] = [];
  for await (const novel of client.novels({ has_audio: 'true' })) withAudio.push(novel.id);
  expect(withAudio.length).toBeGreaterThan(0);
  expect(withAudio.every((id) => all.includes(id))).toBe(true);
});
