import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { bearer, startTestApp, type TestApp } from '../support/test-app.js';
import { partnerWithEndpoint, publishFinished, sleep, tenantOf, waitFor, WebhookReceiver } from './webhook-test-kit.js';
import { UnitOfWork } from '../../src/shared/persistence/unit-of-work.js';
import { WebhookEventPublisher } from '../../src/modules/webhooks/index.js';

// The fast schedule of the tests: attempts at once, after 0.2 s, after 0.4 s more.
const SCHEDULE = '0,0.2,0.4';
// Long enough for every scheduled attempt to have been made had it been due.
const SETTLE_MS = 1_500;

describe('webhook delivery', () => {
  let app: TestApp;
  let receiver: WebhookReceiver;
  let db: pg.Client;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    // Receivers on 127.0.0.1 over http, registered as live endpoints: the URL rules are tested apart.
    app = await startTestApp({
      WEBHOOK_RETRY_SCHEDULE: SCHEDULE,
      WEBHOOK_POLL_INTERVAL_MS: '50',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_ALLOW_INSECURE_URLS: 'true',
    });
    db = new pg.Client({ connectionString: app.databaseUrl });
    await db.connect();
  });

  afterAll(async () => {
    await app?.close();
    await db?.end();
    await receiver?.close();
  });

  const deliveriesOf = async (token: string, endpointId: string) => {
    const response = await app.inject({ method: 'GET', url: `/platform/v1/webhook-endpoints/${endpointId}/deliveries`, headers: bearer(token) });
    expect(response.statusCode).toBe(200);
    return response.json().data as {
      event_id: string;
      status: string;
      attempts: { status_code: number | null; error: string | null; duration_ms: number; attempted_at: string }[];
    }[];
  };

  it('sends the stored payload, signed so that the Standard Webhooks library verifies it', async () => {
    const { tenant, endpoint, token } = await partnerWithEndpoint(app, receiver.url('/signed'));
    const event = await publishFinished(app, tenant, 'sub-signed');
    await waitFor(() => receiver.at('/signed').length === 1, 'the delivery');
    const [request] = receiver.at('/signed');

    const [{ payload }] = (await db.query(`SELECT payload::text AS payload FROM webhook_events WHERE event_id = $1`, [event.event_id])).rows;
    expect(request.body).toBe(payload);
    expect(JSON.parse(request.body)).toEqual(event);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['webhook-id']).toBe(event.event_id);
    // The partner's first event: its place in the event feed.
    expect(request.headers['webhook-sequence']).toBe('1');
    expect(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    const verified = new Webhook(endpoint.secret).verify(request.body, request.headers as Record<string, string>);
    expect(verified).toEqual(event);

    await waitFor(async () => (await deliveriesOf(token, endpoint.id))[0]?.status === 'delivered', 'the delivery to be recorded');
    const [delivery] = await deliveriesOf(token, endpoint.id);
    expect(delivery).toMatchObject({ event_id: event.event_id, event_type: 'novel.finished', status: 'delivered', next_attempt_at: null });
    expect(delivery.attempts).toEqual([{ status_code: 200, duration_ms: expect.any(Number), error: null, attempted_at: expect.any(String) }]);
  });

  it('retries a receiver that fails twice, with the same webhook-id, and stops at its 2xx', async () => {
    receiver.answerWith((request, index) => (request.path === '/flaky' && index < 2 ? { status: 500 } : { status: 200 }));
    const { tenant, endpoint, token } = await partnerWithEndpoint(app, receiver.url('/flaky'));
    const event = await publishFinished(app, tenant);
    await waitFor(() => receiver.at('/flaky').length === 3, 'three attempts');
    await sleep(SETTLE_MS);

    const requests = receiver.at('/flaky');
    expect(requests).toHaveLength(3);
    expect(requests.map((r) => r.headers['webhook-id'])).toEqual([event.event_id, event.event_id, event.event_id]);
    const [delivery] = await deliveriesOf(token, endpoint.id);
    expect(delivery.status).toBe('delivered');
    expect(delivery.attempts.map((a) => [a.status_code, a.error])).toEqual([
      [500, 'http_status'],
      [500, 'http_status'],
      [200, null],
    ]);
  });

  it('marks a delivery failed after the last scheduled attempt, and redelivers it on request', async () => {
    let healthy = false;
    receiver.answerWith((request) => (request.path === '/down' && !healthy ? { status: 503 } : { status: 200 }));
    const { tenant, endpoint, token } = await partnerWithEndpoint(app, receiver.url('/down'));
    const event = await publishFinished(app, tenant);
    await waitFor(async () => (await deliveriesOf(token, endpoint.id))[0]?.status === 'failed', 'the delivery to fail');
    await sleep(SETTLE_MS);
    expect(receiver.at('/down')).toHaveLength(3);

    healthy = true;
    const redelivery = await app.inject({ method: 'POST', url: `/platform/v1/webhook-events/${event.event_id}/redeliver`, headers: bearer(token) });
    expect(redelivery.statusCode).toBe(202);
    expect(redelivery.json()).toEqual({ event_id: event.event_id, endpoint_ids: [endpoint.id] });
    await waitFor(async () => (await deliveriesOf(token, endpoint.id))[0]?.status === 'delivered', 'the redelivery');
    expect(receiver.at('/down')).toHaveLength(4);
    const [delivery] = await deliveriesOf(token, endpoint.id);
    expect(delivery.attempts.map((a) => a.status_code)).toEqual([503, 503, 503, 200]);
  });

  it('signs with the old and the new secret after a rotation', async () => {
    const { tenant, endpoint, token } = await partnerWithEndpoint(app, receiver.url('/rotated'));
    const rotated = await app.inject({ method: 'POST', url: `/platform/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, headers: bearer(token) });
    expect(rotated.statusCode).toBe(200);
    const { secret: newSecret } = rotated.json();
    await publishFinished(app, tenant);
    await waitFor(() => receiver.at('/rotated').length === 1, 'the delivery');
    const [request] = receiver.at('/rotated');

    expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [endpoint.secret, newSecret]) {
      expect(() => new Webhook(secret).verify(request.body, request.headers as Record<string, string>)).not.toThrow();
    }
  });

  it('does not follow a redirect: the 3xx is a failed attempt', async () => {
    receiver.answerWith((request) => (request.path === '/moved' ? { status: 302, headers: { location: '/elsewhere' } } : { status: 200 }));
    const { tenant, endpoint, token } = await partnerWithEndpoint(app, receiver.url('/moved'));
    await publishFinished(app, tenant);
    await waitFor(async () => (await deliveriesOf(token, endpoint.id))[0]?.status === 'failed', 'the delivery to fail');

    expect(receiver.at('/elsewhere')).toHaveLength(0);
    const [delivery] = await deliveriesOf(token, endpoint.id);
    expect(delivery.attempts).toHaveLength(3);
    expect(delivery.attempts[0]).toMatchObject({ status_code: 302, error: 'http_status' });
  });

  it('gives up on an attempt at the timeout and logs why', async () => {
    receiver.answerWith((request) => (request.path === '/slow' ? 'hang' : { status: 200 }));
    const { tenant, endpoint, token } = await partnerWithEndpoint(app, receiver.url('/slow'));
    await publishFinished(app, tenant);
    await waitFor(async () => (await deliveriesOf(token, endpoint.id))[0]?.attempts.length >= 1, 'the first attempt to be logged');

    const [attempt] = (await deliveriesOf(token, endpoint.id))[0].attempts;
    expect(attempt).toMatchObject({ status_code: null, error: 'timeout' });
    expect(attempt.duration_ms).toBeGreaterThanOrEqual(950);
    expect(attempt.duration_ms).toBeLessThan(3000);
  });

  it('logs a connection failure without a status code', async () => {
    const closed = await WebhookReceiver.start();
    const url = closed.url('/gone');
    await closed.close();
    const { tenant, endpoint, token } = await partnerWithEndpoint(app, url);
    await publishFinished(app, tenant);
    await waitFor(async () => (await deliveriesOf(token, endpoint.id))[0]?.status === 'failed', 'the delivery to fail');

    const [delivery] = await deliveriesOf(token, endpoint.id);
    expect(delivery.attempts).toHaveLength(3);
    expect(delivery.attempts[0]).toMatchObject({ status_code: null, error: 'connection_refused' });
  });

  it("sends an event only to the endpoints of the event's partner and environment that existed when it was published", async () => {
    const { tenant, token } = await partnerWithEndpoint(app, receiver.url('/own'));
    await partnerWithEndpoint(app, receiver.url('/other-partner'));
    await partnerWithEndpoint(app, receiver.url('/sandbox'), 'sandbox');
    const event = await publishFinished(app, tenant);
    const later = await app.inject({
      method: 'POST',
      url: '/platform/v1/webhook-endpoints',
      headers: bearer(token),
      payload: { url: receiver.url('/added-later'), events: ['novel.finished'] },
    });
    expect(later.statusCode).toBe(201);
    await waitFor(() => receiver.at('/own').length === 1, 'the delivery');
    await sleep(SETTLE_MS);

    expect(receiver.at('/other-partner')).toHaveLength(0);
    expect(receiver.at('/sandbox')).toHaveLength(0);
    expect(receiver.at('/added-later')).toHaveLength(0);
    expect(receiver.at('/own')[0].headers['webhook-id']).toBe(event.event_id);
  });

  it('stops delivering to a deleted endpoint', async () => {
    receiver.answerWith((request) => (request.path === '/deleted' ? 'hang' : { status: 200 }));
    const { tenant, endpoint, token } = await partnerWithEndpoint(app, receiver.url('/deleted'));
    await publishFinished(app, tenant);
    await waitFor(() => receiver.at('/deleted').length === 1, 'the first attempt');
    const deleted = await app.inject({ method: 'DELETE', url: `/platform/v1/webhook-endpoints/${endpoint.id}`, headers: bearer(token) });
    expect(deleted.statusCode).toBe(204);
    await sleep(SETTLE_MS + 1000);

    expect(receiver.at('/deleted')).toHaveLength(1);
    const { rows } = await db.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1`, [endpoint.id]);
    expect(rows[0].n).toBe(0);
  });

  it('writes no event when the transaction that publishes it fails', async () => {
    const { credential } = await partnerWithEndpoint(app, receiver.url('/rolled-back'));
    const publisher = app.app.get(WebhookEventPublisher);
    let eventId = '';
    await expect(
      app.app.get(UnitOfWork).run(async () => {
        const event = await publisher.novelFinished(tenantOf(credential), { subscriber_id: 'sub-1', novel_id: 'the-heir', choice_id: 'stay' }, new Date());
        eventId = event.event_id;
        throw new Error('the state change failed after the event was published');
      }),
    ).rejects.toThrow('the state change failed');
    await sleep(SETTLE_MS);

    expect(eventId).not.toBe('');
    const events = await db.query(`SELECT 1 FROM webhook_events WHERE event_id = $1 OR partner_id = $2`, [eventId, credential.partner_id]);
    expect(events.rowCount).toBe(0);
    const deliveries = await db.query(`SELECT 1 FROM webhook_deliveries WHERE event_id = $1`, [eventId]);
    expect(deliveries.rowCount).toBe(0);
    expect(receiver.at('/rolled-back')).toHaveLength(0);
  });
});
