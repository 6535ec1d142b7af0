import { PartnerCredentialsService } from '../../src/modules/identity/index.js';
import { useTwoReplicas } from '../support/replicas.js';
import { bearer } from '../support/test-app.js';
import { partnerWithEndpoint, publishFinished, sleep, waitFor, WebhookReceiver } from './webhook-test-kit.js';

const ENDPOINTS = '/platform/v1/webhook-endpoints';
const TIMEOUT_MS = 5_000;
/**
 * Two replicas on one database, each with few slots, so that without a per-partner share
 * one partner's hanging endpoints would fill every slot. Sandbox endpoints, which may
 * use http on loopback with the default settings.
 */
const SETTINGS = {
  WEBHOOK_POLL_INTERVAL_MS: '50',
  WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
  WEBHOOK_CONCURRENCY: '8',
  WEBHOOK_PARTNER_CONCURRENCY: '4',
};

/** DECISIONS 27: no partner can delay another's deliveries, nor multiply its own. */
describe('fair webhook delivery', () => {
  const replicas = useTwoReplicas(SETTINGS);
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
  });

  afterAll(async () => {
    await receiver?.close();
  });

  const call = (token: string, method: 'POST' | 'DELETE', url: string, payload?: object) =>
    replicas.first.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });

  it("delivers a partner's event at once while another partner's ten endpoints never answer", async () => {
    receiver.answerWith((request) => (request.path.startsWith('/dead-') ? 'hang' : { status: 200 }));
    const dead = await partnerWithEndpoint(replicas.first, receiver.url('/dead-0'), 'sandbox');
    const deadEndpoints = [dead.endpoint.id];
    for (let i = 1; i < 10; i++) {
      const created = await call(dead.token, 'POST', ENDPOINTS, { url: receiver.url(`/dead-${i}`), events: ['novel.finished'] });
      expect(created.statusCode).toBe(201);
      deadEndpoints.push(created.json().id);
    }
    const healthy = await partnerWithEndpoint(replicas.first, receiver.url('/healthy'), 'sandbox');

    // Fifty deliveries that each hang for the whole timeout, all due before the other partner's.
    for (let i = 0; i < 5; i++) await publishFinished(replicas.first, dead.tenant, `dead-${i}`);
    await waitFor(() => receiver.received.some((request) => request.path.startsWith('/dead-')), 'the first hanging attempt');
    const published = Date.now();
    await publishFinished(replicas.first, healthy.tenant);
    await waitFor(() => receiver.at('/healthy').length === 1, 'the healthy partner’s delivery');
    const delay = Date.now() - published;

    // Without a share, the hanging attempts would hold every slot of both replicas for a
    // whole timeout; half of it is slack for a busy machine.
    expect(delay).toBeLessThan(TIMEOUT_MS / 2);
    // Within the first timeout, the hanging partner has held only its share, across both replicas.
    await sleep(1_000);
    expect(receiver.received.filter((request) => request.path.startsWith('/dead-'))).toHaveLength(4);
    // Its backlog would keep both replicas busy with it to the end of the file.
    for (const id of deadEndpoints) await call(dead.token, 'DELETE', `${ENDPOINTS}/${id}`);
  });

  it('accepts 10 endpoints per partner and environment, under concurrent creates, and refuses the 11th with 409', async () => {
    const credential = await replicas.first.partner({ scopes: ['platform:webhooks:manage'], environment: 'sandbox' });
    const token = await replicas.first.token(credential);
    const create = (i: number) => call(token, 'POST', ENDPOINTS, { url: receiver.url(`/cap-${i}`), events: ['novel.finished'] });

    const answers = await Promise.all(Array.from({ length: 14 }, (_, i) => create(i)));
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([...Array(10).fill(201), ...Array(4).fill(409)]);
    const refused = answers.find((answer) => answer.statusCode === 409)!;
    expect(refused.json()).toEqual({
      error: 'endpoint_limit_reached',
      error_description: expect.stringMatching(/At most 10 webhook endpoints.*delete one first/),
    });
    const { rows } = await replicas.db.query(`SELECT count(*)::int AS n FROM webhook_endpoints WHERE partner_id = $1`, [credential.partner_id]);
    expect(rows[0].n).toBe(10);

    // A deleted endpoint frees its place.
    const id = answers.find((answer) => answer.statusCode === 201)!.json().id;
    expect((await call(token, 'DELETE', `${ENDPOINTS}/${id}`)).statusCode).toBe(204);
    expect((await create(99)).statusCode).toBe(201);
    expect((await create(100)).statusCode).toBe(409);
  });

  it("counts a partner's live and sandbox endpoints apart", async () => {
    const sandbox = await replicas.first.partner({ scopes: ['platform:webhooks:manage'], environment: 'sandbox' });
    const sandboxToken = await replicas.first.token(sandbox);
    for (let i = 0; i < 10; i++)
      expect((await call(sandboxToken, 'POST', ENDPOINTS, { url: receiver.url(`/env-${i}`), events: ['novel.finished'] })).statusCode).toBe(201);
    const live = await replicas.first.app.get(PartnerCredentialsService).createCredential(sandbox.partner_id, ['platform:webhooks:manage'], 'live');
    const liveToken = await replicas.first.token(live);
    expect((await call(liveToken, 'POST', ENDPOINTS, { url: 'https://93.184.215.14/hook', events: ['novel.finished'] })).statusCode).toBe(201);
  });

  it('starts one attempt when a failed event is redelivered 12 times in a row', async () => {
    let healthy = false;
    receiver.answerWith((request) => (request.path !== '/redelivered' ? { status: 200 } : healthy ? { status: 200, delayMs: 1_500 } : { status: 503 }));
    const { tenant, token } = await partnerWithEndpoint(replicas.first, receiver.url('/redelivered'), 'sandbox');
    const event = await publishFinished(replicas.first, tenant);
    const statusOf = async () => (await replicas.db.query(`SELECT status FROM webhook_deliveries WHERE event_id = $1`, [event.event_id])).rows[0]?.status;
    await waitFor(async () => (await statusOf()) === 'failed', 'the delivery to fail');
    const failedAttempts = receiver.at('/redelivered').length;

    healthy = true;
    // Spread over less time than the attempt takes (1.5 s), as a partner's impatient retry loop would.
    for (let i = 0; i < 12; i++) {
      expect((await call(token, 'POST', `/platform/v1/webhook-events/${event.event_id}/redeliver`)).statusCode).toBe(202);
      await sleep(50);
    }
    await waitFor(async () => (await statusOf()) === 'delivered', 'the redelivery');
    await sleep(1_000); // room for a second attempt to show up

    expect(receiver.at('/redelivered').length - failedAttempts).toBe(1);
    const { rows } = await replicas.db.query(
      `SELECT count(*)::int AS n FROM webhook_delivery_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.event_id = $1 AND a.status_code = 200`,
      [event.event_id],
    );
    expect(rows[0].n).toBe(1);
  });

  it('redelivers an event whose attempt is in flight without a second attempt beside it', async () => {
    receiver.answerWith((request) => (request.path === '/in-flight' ? { status: 200, delayMs: 1_500 } : { status: 200 }));
    const { tenant, token, endpoint } = await partnerWithEndpoint(replicas.first, receiver.url('/in-flight'), 'sandbox');
    const event = await publishFinished(replicas.first, tenant);
    await waitFor(() => receiver.at('/in-flight').length === 1, 'the attempt to start');

    const answers = await Promise.all(Array.from({ length: 12 }, () => call(token, 'POST', `/platform/v1/webhook-events/${event.event_id}/redeliver`)));
    expect(answers.map((answer) => answer.json().endpoint_ids)).toEqual(Array(12).fill([endpoint.id]));
    await waitFor(
      async () => (await replicas.db.query(`SELECT status FROM webhook_deliveries WHERE event_id = $1`, [event.event_id])).rows[0].status === 'delivered',
      'the delivery',
    );
    await sleep(1_000);
    expect(receiver.at('/in-flight')).toHaveLength(1);
  });
});
