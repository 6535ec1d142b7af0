import pg from 'pg';
import { WebhookSender } from '../../src/modules/webhooks/domain/webhook-sender.js';
import { WebhookEventPublisher, type NovelFinishedEvent } from '../../src/modules/webhooks/index.js';
import { UnitOfWork } from '../../src/shared/persistence/unit-of-work.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { partnerWithEndpoint, sleep, waitFor, WebhookReceiver } from './webhook-test-kit.js';

const EVENTS = 200;
// Live endpoints on 127.0.0.1 over http: the URL rules are tested apart.
const SETTINGS = { WEBHOOK_POLL_INTERVAL_MS: '20', WEBHOOK_ALLOW_INSECURE_URLS: 'true' };

/** DECISIONS 1 and 16: replicas on one database share the work and never repeat an attempt. */
describe('webhook delivery by two service instances on one database', () => {
  let first: TestApp;
  let second: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    first = await startTestApp(SETTINGS);
    second = await startTestApp(SETTINGS, first.databaseUrl);
  });

  afterAll(async () => {
    await first?.close();
    await second?.close();
    await receiver?.close();
  });

  /** Counts the requests an instance's worker sends. */
  function countSends(app: TestApp): { count: number } {
    const counter = { count: 0 };
    const sender = app.app.get(WebhookSender);
    const send = sender.send.bind(sender);
    sender.send = (webhook) => {
      counter.count += 1;
      return send(webhook);
    };
    return counter;
  }

  it('delivers each of 200 events exactly once', async () => {
    // A little latency per request keeps both workers busy at the same time.
    receiver.answerWith(() => ({ status: 200, delayMs: 10 }));
    const sends = [countSends(first), countSends(second)];
    const { tenant } = await partnerWithEndpoint(first, receiver.url());
    // One transaction: all 200 become due at the same moment, and both workers race for them.
    const publisher = first.app.get(WebhookEventPublisher);
    const published = await first.app.get(UnitOfWork).run(async () => {
      const events: NovelFinishedEvent[] = [];
      for (let i = 0; i < EVENTS; i++) {
        events.push(await publisher.novelFinished(tenant, { subscriber_id: `sub-${i}`, novel_id: 'the-heir', choice_id: 'stay' }, new Date()));
      }
      return events;
    });

    await waitFor(() => receiver.received.length >= EVENTS, `${EVENTS} deliveries`, 30_000);
    await sleep(1_000); // room for a duplicate to show up
    const ids = receiver.received.map((request) => request.headers['webhook-id']);
    expect(ids).toHaveLength(EVENTS);
    expect(new Set(ids)).toEqual(new Set(published.map((event) => event.event_id)));
    expect(sends.map((s) => s.count > 0)).toEqual([true, true]);
    expect(sends[0].count + sends[1].count).toBe(EVENTS);

    const db = new pg.Client({ connectionString: first.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query(
        `SELECT d.status, count(DISTINCT d.id)::int AS deliveries, count(a.id)::int AS attempts
         FROM webhook_deliveries d LEFT JOIN webhook_delivery_attempts a ON a.delivery_id = d.id GROUP BY d.status`,
      );
      expect(rows).toEqual([{ status: 'delivered', deliveries: EVENTS, attempts: EVENTS }]);
    } finally {
      await db.end();
    }
  });
});
