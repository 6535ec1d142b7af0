import { DataSource } from 'typeorm';
import { EventRetentionJob } from '../../src/modules/webhooks/application/event-retention.job.js';
import { WebhookEventPublisher } from '../../src/modules/webhooks/index.js';
import { UnitOfWork } from '../../src/shared/persistence/unit-of-work.js';
import type { Tenant } from '../../src/shared/tenancy/tenant.js';
import { bearer, startTestApp, type TestApp } from '../support/test-app.js';

/** DECISIONS 22: the event feed, gap-free per partner in commit order, with long polling, across replicas. */
let first: TestApp;
let second: TestApp;

beforeAll(async () => {
  first = await startTestApp();
  second = await startTestApp({}, first.databaseUrl);
});
afterAll(async () => {
  await first?.close();
  await second?.close();
});

async function partner(app: TestApp, environment: 'live' | 'sandbox' = 'live') {
  const credential = await app.partner({ scopes: ['platform:webhooks:manage'], environment });
  const tenant: Tenant = { partnerId: credential.partner_id, environment };
  return { tenant, token: await app.token(credential) };
}

const publish = (app: TestApp, tenant: Tenant, i: number) =>
  app.app.get(WebhookEventPublisher).novelFinished(tenant, { subscriber_id: `sub-${i}`, novel_id: 'the-heir', choice_id: 'stay' }, new Date());

const readFeed = (app: TestApp, token: string, query = '') =>
  app.inject({ method: 'GET', url: `/platform/v1/events${query ? `?${query}` : ''}`, headers: bearer(token) });

it('numbers events written concurrently through two replicas 1..N, with no gap and no duplicate, readable in order', async () => {
  const { tenant, token } = await partner(first);
  const published = await Promise.all(
    Array.from({ length: 60 }, (_, i) => {
      const app = i % 2 ? second : first;
      // Some events share a transaction with others, as a finishing write may.
      return i % 5 === 0
        ? app.app.get(UnitOfWork).run(async () => [await publish(app, tenant, i), await publish(app, tenant, i + 1000)])
        : publish(app, tenant, i).then((e) => [e]);
    }),
  );
  const ids = published.flat().map((event) => event.event_id);

  const seen: { seq: number; event_id: string }[] = [];
  let after = 0;
  for (;;) {
    const response = await readFeed(second, token, `after=${after}&limit=7`);
    expect(response.statusCode).toBe(200);
    const page = response.json();
    seen.push(...page.data);
    after = page.next_after;
    if (!page.has_more) break;
  }
  expect(seen.map((item) => item.seq)).toEqual(Array.from({ length: ids.length }, (_, i) => i + 1));
  expect(new Set(seen.map((item) => item.event_id))).toEqual(new Set(ids));
  expect(after).toBe(ids.length);
});

it('serves each item as the webhook payload plus seq, and keeps partners and environments apart', async () => {
  const { tenant, token } = await partner(first);
  const sandbox = await partner(first, 'sandbox');
  const other = await partner(first);
  const event = await publish(first, tenant, 1);
  await publish(first, sandbox.tenant, 2);

  expect((await readFeed(first, token)).json()).toEqual({
    data: [{ seq: 1, event_id: event.event_id, event: 'novel.finished', occurred_at: event.occurred_at, data: event.data }],
    next_after: 1,
    has_more: false,
  });
  expect((await readFeed(first, other.token)).json()).toEqual({ data: [], next_after: 0, has_more: false });
  expect((await readFeed(first, sandbox.token)).json().data.map((item: { seq: number }) => item.seq)).toEqual([1]);
});

it('answers a long poll within 1 s of a commit made through the other replica', async () => {
  const { tenant, token } = await partner(first);
  const started = Date.now();
  const poll = readFeed(first, token, 'after=0&wait=10');
  await new Promise((resolve) => setTimeout(resolve, 500));
  // From the commit (publish resolves once it has committed), not from the call: on a loaded
  // machine the write itself may take a while, and the promise starts at its commit.
  const event = await publish(second, tenant, 1);
  const committed = Date.now();
  const response = await poll;
  const answered = Date.now();
  expect(response.json().data.map((item: { event_id: string }) => item.event_id)).toEqual([event.event_id]);
  expect(answered - committed).toBeLessThan(1_000);
  expect(answered - started).toBeGreaterThanOrEqual(500);
});

it('ends a long poll with nothing to read after the wait, with an empty page', async () => {
  const { token } = await partner(first);
  const started = Date.now();
  const response = await readFeed(first, token, 'after=0&wait=1');
  expect(response.statusCode).toBe(200);
  expect(response.json()).toEqual({ data: [], next_after: 0, has_more: false });
  expect(Date.now() - started).toBeGreaterThanOrEqual(900);
});

it('keeps events 90 days, then answers 410 events_expired to an after older than that', async () => {
  const { tenant, token } = await partner(first);
  for (let i = 0; i < 5; i++) await publish(first, tenant, i);
  await first.app
    .get(DataSource)
    .query(`UPDATE webhook_events SET created_at = now() - interval '91 days' WHERE partner_id = $1 AND seq <= 3`, [tenant.partnerId]);
  expect(await first.app.get(EventRetentionJob).pruneExpired()).toBeGreaterThanOrEqual(3);

  const expired = await readFeed(first, token, 'after=2');
  expect(expired.statusCode).toBe(410);
  expect(expired.json()).toEqual({ error: 'events_expired', error_description: expect.stringContaining('90 days') });
  expect((await readFeed(first, token, 'after=3')).json().data.map((item: { seq: number }) => item.seq)).toEqual([4, 5]);
  expect((await readFeed(first, token, 'after=0')).json().data.map((item: { seq: number }) => item.seq)).toEqual([4, 5]);
});

it.each([
  ['after=-1', 'after'],
  ['after=x', 'after'],
  ['limit=0', 'limit'],
  ['limit=501', 'limit'],
  ['wait=31', 'wait'],
  ['wait=1.5', 'wait'],
  ['cursor=3', 'cursor'],
])('answers 400 invalid_request for %s', async (query, field) => {
  const { token } = await partner(first);
  const response = await readFeed(first, token, query);
  expect(response.statusCode).toBe(400);
  expect(response.json()).toEqual({ error: 'invalid_request', error_description: expect.stringContaining(field) });
});

it('needs platform:webhooks:manage', async () => {
  const narrow = await first.token(await first.partner({ scopes: ['platform:billing:read'] }));
  expect((await readFeed(first, narrow)).statusCode).toBe(403);
});
