import pg from 'pg';
import { KeyedTransactionSlots } from '../../src/modules/idempotency/application/keyed-transaction-slots.js';
import { msUntil } from '../support/replicas.js';
import { bearer, useTestApp } from '../support/test-app.js';
import { partnerWithEndpoint } from '../webhooks/webhook-test-kit.js';

/**
 * Keyed requests' transactions on a pool of 4 (ADR 0158): two slots, one per partner. A
 * partner whose keyed write holds its slot waits with its next; another partner's goes ahead.
 */
const t = useTestApp({ DATABASE_POOL_SIZE: '4', WEBHOOK_WORKER: 'false', WEBHOOK_ALLOW_INSECURE_URLS: 'true' });

it("lets another partner's keyed write through while one partner's wait behind its own", async () => {
  const slots = t.app.get(KeyedTransactionSlots);
  expect([slots.total, slots.perPartner]).toEqual([2, 1]);
  const flooding = await t.partner();
  const floodingToken = await t.token(flooding);
  const other = await partnerWithEndpoint(t, 'http://127.0.0.1:9/hook');
  const entitle = (subscriber: string) =>
    t.inject({
      method: 'POST',
      url: '/platform/v1/entitlements',
      headers: { ...bearer(floodingToken), 'idempotency-key': `flood-${subscriber}` },
      payload: { subscriber_id: subscriber, product: 'textapp', status: 'active' },
    });
  const blocker = new pg.Client({ connectionString: t.databaseUrl });
  await blocker.connect();
  try {
    // The flooding partner's first write holds its slot, waiting on this lock.
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE entitlements IN SHARE ROW EXCLUSIVE MODE');
    const first = entitle('first');
    await msUntil(async () => slots.held(flooding.partner_id) === 1, 15_000);
    const second = entitle('second');
    await msUntil(async () => slots.waitingCount() === 1, 15_000);
    // Operators see it (an alert fires on waiting keyed writes).
    const metrics = (await t.inject({ method: 'GET', url: '/metrics' })).body;
    expect(metrics).toMatch(/^keyed_write_transactions\{state="open"\} 1$/m);
    expect(metrics).toMatch(/^keyed_write_transactions\{state="waiting"\} 1$/m);

    const created = await t.inject({
      method: 'POST',
      url: '/platform/v1/webhook-endpoints',
      headers: { ...bearer(other.token), 'idempotency-key': 'meanwhile' },
      payload: { url: 'http://127.0.0.1:9/meanwhile', events: ['novel.finished'] },
    });
    expect(created.statusCode).toBe(201);
    expect(slots.held(flooding.partner_id)).toBe(1);

    await blocker.query('COMMIT');
    expect([(await first).statusCode, (await second).statusCode]).toEqual([200, 200]);
    expect(slots.held()).toBe(0);
  } finally {
    await blocker.end();
  }
});
