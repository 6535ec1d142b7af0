import { jest } from '@jest/globals';
import { DataSource } from 'typeorm';
import { WebhookEventPublisher } from '../../src/modules/webhooks/index.js';
import { importCatalog, manifest, manifestNovel } from '../fixtures/catalog-fixture.js';
import { CATALOG_TABLES, statementsDuring } from '../fixtures/query-counter.js';
import { partnerClient, type PartnerClient } from '../fixtures/partner-client.js';
import { useTestApp } from '../support/test-app.js';

const t = useTestApp();
let db: DataSource;
let a: PartnerClient;

const NOVELS = ['novel-1', 'novel-2', 'novel-3', 'novel-4', 'novel-5'];

beforeAll(async () => {
  db = t.app.get(DataSource);
  await importCatalog(t, manifest([...NOVELS.map((id) => manifestNovel(id, { chapters: 3, endings: ['stay', 'leave'] })), manifestNovel('withdrawn')]));
  a = await partnerClient(t);
});

let subscriberCount = 0;
/** A new entitled subscriber of partner `client`, so tests do not share state. */
async function newSubscriber(client: PartnerClient = a, plan?: string): Promise<string> {
  const id = `sub-${++subscriberCount}`;
  await client.entitle(id, { plan });
  return id;
}

const open = (subscriber: string, novelId: string, client = a, extra: object = {}) =>
  client.call('POST', `/subscribers/${subscriber}/novels`, { novel_id: novelId, ...extra });
const progressOf = async (subscriber: string, client = a) => (await client.call('GET', `/subscriber/${subscriber}/reading-progress`)).json();

/** Moves a subscriber's start back in time, as if the novel had been opened `days` ago. */
const startedDaysAgo = (client: PartnerClient, subscriber: string, novelId: string, days: number) =>
  db.query(`UPDATE novel_progress SET started_at = now() - make_interval(days => $4) WHERE partner_id = $1 AND subscriber_id = $2 AND novel_id = $3`, [
    client.partnerId,
    subscriber,
    novelId,
    days,
  ]);

const events = (client: PartnerClient, subscriber: string) =>
  db.query(`SELECT event_type, payload FROM webhook_events WHERE partner_id = $1 AND payload->'data'->>'subscriber_id' = $2`, [client.partnerId, subscriber]);

function expectError(response: Awaited<ReturnType<PartnerClient['call']>>, status: number, error: string) {
  expect({ status: response.statusCode, body: response.json() }).toEqual({ status, body: { error, error_description: expect.any(String) } });
}

describe('POST /subscribers/{id}/novels (open)', () => {
  it('opens a novel: 201 with the reading-progress entry, then 200 with the same entry', async () => {
    const subscriber = await newSubscriber();
    const created = await open(subscriber, 'novel-1');
    expect(created.statusCode).toBe(201);
    expect(created.json()).toEqual({
      novel_id: 'novel-1',
      title: 'Title of novel-1',
      started_at: expect.stringMatching(/Z$/),
      current_chapter: 1,
      unlocked_chapters: 1,
      total_chapters: 3,
      finished_at: null,
      chosen_choice_id: null,
    });
    const again = await open(subscriber, 'novel-1');
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(created.json());
  });

  it('refuses a subscriber without an active textapp or audioapp entitlement with 403 subscriber_not_entitled', async () => {
    expectError(await open('never-entitled', 'novel-1'), 403, 'subscriber_not_entitled');
    await a.entitle('suspended-one', { status: 'suspended' });
    expectError(await open('suspended-one', 'novel-1'), 403, 'subscriber_not_entitled');
    await a.entitle('kids-only', { product: 'kidsapp' });
    expectError(await open('kids-only', 'novel-1'), 403, 'subscriber_not_entitled');
    await a.entitle('listener', { product: 'audioapp' });
    expect((await open('listener', 'novel-1')).statusCode).toBe(201);
  });

  it('answers 404 invalid_request for an unknown or removed novel', async () => {
    const subscriber = await newSubscriber();
    expectError(await open(subscriber, 'no-such-novel'), 404, 'invalid_request');
    await importCatalog(t, manifest([manifestNovel('withdrawn', { status: 'removed' })]));
    expectError(await open(subscriber, 'withdrawn'), 404, 'invalid_request');
  });

  it('refuses a fourth unfinished novel with 409 active_novel_limit_reached', async () => {
    const subscriber = await newSubscriber();
    for (const novel of NOVELS.slice(0, 3)) expect((await open(subscriber, novel)).statusCode).toBe(201);
    expectError(await open(subscriber, 'novel-4'), 409, 'active_novel_limit_reached');
    // Removing one frees a place.
    expect((await a.call('DELETE', `/subscribers/${subscriber}/novels/novel-1`)).statusCode).toBe(204);
    expect((await open(subscriber, 'novel-4')).statusCode).toBe(201);
  });

  it('leaves at most 3 unfinished novels after 10 parallel opens of 5 novels', async () => {
    const subscriber = await newSubscriber();
    const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => open(subscriber, NOVELS[i % 5])));
    const statuses = responses.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 201)).toHaveLength(3);
    expect(statuses.every((s) => [200, 201, 409].includes(s))).toBe(true);
    const [{ count }] = await db.query(
      `SELECT count(*)::int AS count FROM novel_progress WHERE partner_id = $1 AND subscriber_id = $2 AND finished_at IS NULL`,
      [a.partnerId, subscriber],
    );
    expect(count).toBe(3);
    expect((await progressOf(subscriber)).active_novel_count).toBe(3);
  });

  it.each([
    [{}, 'novel_id'],
    [{ novel_id: 'Not A Slug' }, 'novel_id'],
    [{ novel_id: 'novel-1', colour: 'red' }, 'colour'],
    [{ novel_id: 'novel-1', started_at: '2026-01-01T00:00:00Z' }, 'started_at'],
  ])('answers 400 invalid_request for the body %j, naming %s', async (body, field) => {
    const subscriber = await newSubscriber();
    const response = await a.call('POST', `/subscribers/${subscriber}/novels`, body);
    expectError(response, 400, 'invalid_request');
    expect(response.json().error_description).toContain(field);
  });

  it('answers 400 invalid_request for a malformed subscriber id, and 403 without textapp:progress:write', async () => {
    expectError(await open('bad id!', 'novel-1'), 400, 'invalid_request');
    const readOnly = await partnerClient(t, { scopes: ['textapp:progress:read', 'platform:entitlements:write'] });
    expectError(await open('sub-x', 'novel-1', readOnly), 403, 'insufficient_scope');
  });
});

describe('the sandbox started_at', () => {
  it('starts the drip at a past instant on the sandbox, and refuses a future one', async () => {
    const sandbox = await partnerClient(t, { environment: 'sandbox', partnerId: a.partnerId });
    await sandbox.entitle('sbx-reader');
    const startedAt = new Date(Date.now() - 10 * 86_400_000).toISOString();
    const response = await open('sbx-reader', 'the-heir', sandbox, { started_at: startedAt });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({ started_at: startedAt, unlocked_chapters: 5, total_chapters: 5 });
    const future = await open('sbx-reader', 'letters-from-paraty', sandbox, { started_at: new Date(Date.now() + 60_000).toISOString() });
    expectError(future, 400, 'invalid_request');
    expectError(await open('sbx-reader', 'letters-from-paraty', sandbox, { started_at: '2026-02-30T10:00:00Z' }), 400, 'invalid_request');
  });
});

describe('DELETE /subscribers/{id}/novels/{novel_id} (remove)', () => {
  it('removes an unfinished novel (204) and its playback position; reopening restarts the drip', async () => {
    const subscriber = await newSubscriber();
    await open(subscriber, 'novel-2');
    await startedDaysAgo(a, subscriber, 'novel-2', 5);
    await db.query(
      `INSERT INTO playback_positions (partner_id, environment, subscriber_id, novel_id, chapter_number, position_seconds, updated_at) VALUES ($1, 'live', $2, 'novel-2', 1, 5, now())`,
      [a.partnerId, subscriber],
    );
    const response = await a.call('DELETE', `/subscribers/${subscriber}/novels/novel-2`);
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe('');
    expect((await progressOf(subscriber)).novels).toEqual([]);
    expect(await db.query(`SELECT 1 FROM playback_positions WHERE partner_id = $1 AND subscriber_id = $2`, [a.partnerId, subscriber])).toEqual([]);
    const reopened = (await open(subscriber, 'novel-2')).json();
    expect(reopened.unlocked_chapters).toBe(1);
    expect(Date.now() - Date.parse(reopened.started_at)).toBeLessThan(60_000);
  });

  it('answers 404 not_found for a novel never opened, 404 invalid_request for an unknown one, 409 for a finished one', async () => {
    const subscriber = await newSubscriber();
    expectError(await a.call('DELETE', `/subscribers/${subscriber}/novels/novel-3`), 404, 'not_found');
    expectError(await a.call('DELETE', `/subscribers/${subscriber}/novels/no-such-novel`), 404, 'invalid_request');
    await open(subscriber, 'novel-3');
    await startedDaysAgo(a, subscriber, 'novel-3', 5);
    await a.call('POST', '/novels/novel-3/choices', { subscriber_id: subscriber, choice_id: 'stay' });
    expectError(await a.call('DELETE', `/subscribers/${subscriber}/novels/novel-3`), 409, 'novel_already_finished');
  });
});

describe('endings: GET and POST /novels/{id}/choices', () => {
  const state = (subscriber: string, novel = 'novel-1') => a.call('GET', `/novels/${novel}/choices?subscriber_id=${subscriber}`);
  const choose = (subscriber: string, choiceId: string, novel = 'novel-1') =>
    a.call('POST', `/novels/${novel}/choices`, { subscriber_id: subscriber, choice_id: choiceId });

  it('hides the endings until the last chapter is released: 200, available false, no choices', async () => {
    const subscriber = await newSubscriber();
    const notStarted = await state(subscriber);
    expect(notStarted.statusCode).toBe(200);
    expect(notStarted.json()).toEqual({ novel_id: 'novel-1', available: false, choices: [] });
    await open(subscriber, 'novel-1');
    expect((await state(subscriber)).json()).toEqual({ novel_id: 'novel-1', available: false, choices: [] });
  });

  it('refuses a choice before opening (409 novel_not_started) and before the last chapter (409 endings_not_available)', async () => {
    const subscriber = await newSubscriber();
    expectError(await choose(subscriber, 'stay'), 409, 'novel_not_started');
    await open(subscriber, 'novel-1');
    expectError(await choose(subscriber, 'stay'), 409, 'endings_not_available');
  });

  it('finishes the novel with the chosen ending, emitting novel.finished once', async () => {
    const subscriber = await newSubscriber();
    await open(subscriber, 'novel-1');
    await startedDaysAgo(a, subscriber, 'novel-1', 3);
    expect((await state(subscriber)).json()).toEqual({
      novel_id: 'novel-1',
      available: true,
      choices: [
        { choice_id: 'stay', label: 'Label stay', ending: 'Ending stay', sort_order: 1 },
        { choice_id: 'leave', label: 'Label leave', ending: 'Ending leave', sort_order: 2 },
      ],
    });
    expectError(await choose(subscriber, 'elope'), 400, 'invalid_request');

    const chosen = await choose(subscriber, 'leave');
    expect(chosen.statusCode).toBe(200);
    expect(chosen.json()).toEqual({ ...(await state(subscriber)).json(), chosen_choice_id: 'leave' });
    expect((await state(subscriber)).json().chosen_choice_id).toBe('leave');
    const entry = (await progressOf(subscriber)).novels[0];
    expect(entry).toMatchObject({ novel_id: 'novel-1', chosen_choice_id: 'leave', finished_at: expect.stringMatching(/Z$/), unlocked_chapters: 3 });

    const [event] = await events(a, subscriber);
    expect(event).toEqual({
      event_type: 'novel.finished',
      payload: {
        event: 'novel.finished',
        event_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        occurred_at: entry.finished_at,
        data: { subscriber_id: subscriber, novel_id: 'novel-1', choice_id: 'leave' },
      },
    });

    // The same choice again: 200, nothing new. Another one: 409.
    expect((await choose(subscriber, 'leave')).statusCode).toBe(200);
    expectError(await choose(subscriber, 'stay'), 409, 'ending_already_chosen');
    expect(await events(a, subscriber)).toHaveLength(1);
    expectError(await open(subscriber, 'novel-1'), 409, 'novel_already_finished');
  });

  it('writes neither finished_at nor the event when the transaction fails after both were written', async () => {
    const subscriber = await newSubscriber();
    await open(subscriber, 'novel-2');
    await startedDaysAgo(a, subscriber, 'novel-2', 3);
    const publisher = t.app.get(WebhookEventPublisher);
    const original = publisher.novelFinished.bind(publisher);
    const failing = jest.spyOn(publisher, 'novelFinished').mockImplementationOnce(async (...args) => {
      await original(...args);
      throw new Error('crash after the outbox write');
    });
    try {
      expect((await choose(subscriber, 'stay', 'novel-2')).statusCode).toBe(500);
      expect(failing).toHaveBeenCalledTimes(1);
    } finally {
      failing.mockRestore();
    }
    expect((await progressOf(subscriber)).novels[0]).toMatchObject({ finished_at: null, chosen_choice_id: null });
    expect(await events(a, subscriber)).toEqual([]);
    // And the choice still works afterwards.
    expect((await choose(subscriber, 'stay', 'novel-2')).statusCode).toBe(200);
    expect(await events(a, subscriber)).toHaveLength(1);
  });

  it('validates the body and the query', async () => {
    expectError(await a.call('GET', '/novels/novel-1/choices'), 400, 'invalid_request');
    expectError(await a.call('POST', '/novels/novel-1/choices', { subscriber_id: 'x' }), 400, 'invalid_request');
    expectError(await a.call('POST', '/novels/novel-1/choices', { subscriber_id: 'x', choice_id: 'stay', extra: true }), 400, 'invalid_request');
  });
});

describe('GET /subscriber/{id}/reading-progress', () => {
  it('reports every opened novel, newest first, with the same answer on the plural alias', async () => {
    const subscriber = await newSubscriber();
    await open(subscriber, 'novel-1');
    await startedDaysAgo(a, subscriber, 'novel-1', 4);
    await open(subscriber, 'novel-2');
    await startedDaysAgo(a, subscriber, 'novel-2', 1);
    await a.call('POST', '/novels/novel-1/choices', { subscriber_id: subscriber, choice_id: 'stay' });
    const response = await a.call('GET', `/subscriber/${subscriber}/reading-progress`);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toEqual({
      subscriber_id: subscriber,
      active_novel_count: 1,
      active_novel_limit: 3,
      novels: [
        expect.objectContaining({ novel_id: 'novel-2', finished_at: null, chosen_choice_id: null, total_chapters: 3 }),
        expect.objectContaining({ novel_id: 'novel-1', finished_at: expect.any(String), chosen_choice_id: 'stay', unlocked_chapters: 3 }),
      ],
    });
    expect(Object.keys(body.novels[0]).sort()).toEqual(
      ['chosen_choice_id', 'current_chapter', 'finished_at', 'novel_id', 'started_at', 'title', 'total_chapters', 'unlocked_chapters'].sort(),
    );
    expect((await a.call('GET', `/subscribers/${subscriber}/reading-progress`)).json()).toEqual(body);
  });

  it('reads the progress in the same one statement for one novel as for three (no query per novel)', async () => {
    const statementsFor = async (novels: string[]) => {
      const subscriber = await newSubscriber();
      for (const novel of novels) expect((await open(subscriber, novel)).statusCode).toBe(201);
      return statementsDuring(t, () => a.call('GET', `/subscriber/${subscriber}/reading-progress`));
    };
    const one = await statementsFor(['novel-1']);
    const three = await statementsFor(['novel-1', 'novel-2', 'novel-3']);
    // The subscriber's progress rows with its entitlements; their novels come from memory.
    expect(one).toHaveLength(1);
    expect(one.filter((sql) => CATALOG_TABLES.test(sql))).toEqual([]);
    expect(three).toEqual(one);
  });

  it('answers an empty progress for an unknown subscriber, and 400 for a malformed id', async () => {
    expect((await a.call('GET', '/subscriber/nobody/reading-progress')).json()).toEqual({
      subscriber_id: 'nobody',
      active_novel_count: 0,
      active_novel_limit: 3,
      novels: [],
    });
    expectError(await a.call('GET', '/subscriber/bad%20id/reading-progress'), 400, 'invalid_request');
  });

  it('drops a novel removed from the catalog, which then no longer counts against the limit', async () => {
    await importCatalog(t, manifest([manifestNovel('soon-gone')]));
    const subscriber = await newSubscriber();
    for (const novel of ['soon-gone', 'novel-1', 'novel-2']) await open(subscriber, novel);
    await importCatalog(t, manifest([manifestNovel('soon-gone', { status: 'removed' })]));
    const progress = await progressOf(subscriber);
    expect(progress.novels.map((n: { novel_id: string }) => n.novel_id).sort()).toEqual(['novel-1', 'novel-2']);
    expect(progress.active_novel_count).toBe(2);
    expect((await open(subscriber, 'novel-3')).statusCode).toBe(201);
  });

  it('needs textapp:progress:read', async () => {
    const narrow = await partnerClient(t, { scopes: ['textapp:catalog:read'] });
    expectError(await narrow.call('GET', '/subscriber/x/reading-progress'), 403, 'insufficient_scope');
  });
});

describe('isolation', () => {
  it('keeps the same subscriber id under two partners as two people', async () => {
    const b = await partnerClient(t);
    const subscriber = await newSubscriber(a);
    for (const novel of NOVELS.slice(0, 3)) await open(subscriber, novel, a);
    expectError(await open(subscriber, 'novel-4', b), 403, 'subscriber_not_entitled');
    await b.entitle(subscriber);
    expect((await progressOf(subscriber, b)).novels).toEqual([]);
    for (const novel of NOVELS.slice(2, 5)) expect((await open(subscriber, novel, b)).statusCode).toBe(201);
    expect((await progressOf(subscriber, a)).novels.map((n: { novel_id: string }) => n.novel_id).sort()).toEqual(NOVELS.slice(0, 3));
    expectError(await a.call('DELETE', `/subscribers/${subscriber}/novels/novel-5`), 404, 'not_found');
  });

  it("keeps a partner's live and sandbox subscribers apart", async () => {
    const sandbox = await partnerClient(t, { environment: 'sandbox', partnerId: a.partnerId });
    const subscriber = await newSubscriber(a);
    await open(subscriber, 'novel-1', a);
    expect((await progressOf(subscriber, sandbox)).novels).toEqual([]);
    expectError(await open(subscriber, 'the-heir', sandbox), 403, 'subscriber_not_entitled');
    // The live catalog's novels do not exist on the sandbox, nor the reverse.
    await sandbox.entitle(subscriber);
    expectError(await open(subscriber, 'novel-1', sandbox), 404, 'invalid_request');
    expectError(await open(subscriber, 'the-heir', a), 404, 'invalid_request');
  });
});
