import { DataSource } from 'typeorm';
import { importCatalog, manifest, manifestNovel } from '../fixtures/catalog-fixture.js';
import { partnerClient, type PartnerClient } from '../fixtures/partner-client.js';
import { useTestApp } from '../support/test-app.js';

const t = useTestApp();
let db: DataSource;
let a: PartnerClient;

beforeAll(async () => {
  db = t.app.get(DataSource);
  await importCatalog(t, manifest([manifestNovel('novel-1', { chapters: 3, endings: ['stay', 'leave'] })]));
  a = await partnerClient(t);
});

const choose = (subscriber: string, choiceId: string) => a.call('POST', '/novels/novel-1/choices', { subscriber_id: subscriber, choice_id: choiceId });

/** A subscriber who opened novel-1 long enough ago for its last chapter to be released. */
async function readerAtTheEnd(subscriber: string): Promise<void> {
  await a.entitle(subscriber);
  expect((await a.call('POST', `/subscribers/${subscriber}/novels`, { novel_id: 'novel-1' })).statusCode).toBe(201);
  await db.query(`UPDATE novel_progress SET started_at = now() - interval '3 days' WHERE partner_id = $1 AND subscriber_id = $2`, [a.partnerId, subscriber]);
}

const finishedEvents = async (subscriber: string) =>
  (
    await db.query(`SELECT 1 FROM webhook_events WHERE partner_id = $1 AND event_type = 'novel.finished' AND payload->'data'->>'subscriber_id' = $2`, [
      a.partnerId,
      subscriber,
    ])
  ).length;

describe('choosing an ending needs an active reading entitlement', () => {
  it.each(['canceled', 'suspended'])('refuses a %s subscriber with 403 subscriber_not_entitled and finishes nothing', async (status) => {
    const subscriber = `reader-${status}`;
    await readerAtTheEnd(subscriber);
    await a.entitle(subscriber, { status });

    const refused = await choose(subscriber, 'stay');
    expect({ status: refused.statusCode, body: refused.json() }).toEqual({
      status: 403,
      body: { error: 'subscriber_not_entitled', error_description: `Subscriber "${subscriber}" has no active textapp or audioapp entitlement.` },
    });
    const [progress] = (await a.call('GET', `/subscriber/${subscriber}/reading-progress`)).json().novels;
    expect(progress).toMatchObject({ novel_id: 'novel-1', finished_at: null, chosen_choice_id: null });
    expect(await finishedEvents(subscriber)).toBe(0);
  });

  it('lets the same subscriber finish once the entitlement is active again', async () => {
    const subscriber = 'reader-returning';
    await readerAtTheEnd(subscriber);
    await a.entitle(subscriber, { status: 'canceled' });
    expect((await choose(subscriber, 'stay')).statusCode).toBe(403);
    await a.entitle(subscriber);
    expect((await choose(subscriber, 'stay')).json()).toMatchObject({ novel_id: 'novel-1', available: true, chosen_choice_id: 'stay' });
    expect(await finishedEvents(subscriber)).toBe(1);
  });
});
