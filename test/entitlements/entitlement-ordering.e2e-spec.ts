import fc from 'fast-check';
import { DataSource } from 'typeorm';
import { bearer, useTestApp } from '../support/test-app.js';

/**
 * DECISIONS 24: entitlement writes ordered by when they happened, through the real API and
 * database. The ordering tests write through a sandbox credential, which accepts any past
 * `effective_at`; the live bound of 72 hours has tests of its own below.
 */
const t = useTestApp();
let token: string;
let partnerId: string;

beforeAll(async () => {
  const credential = await t.partner({ environment: 'sandbox' });
  partnerId = credential.partner_id;
  token = await t.token(credential);
});

const post = (body: Record<string, unknown>) => t.inject({ method: 'POST', url: '/platform/v1/entitlements', headers: bearer(token), payload: body });
const write = (subscriberId: string, status: string, effectiveAt?: string, plan?: string) =>
  post({ subscriber_id: subscriberId, product: 'audioapp', status, ...(plan && { plan }), ...(effectiveAt && { effective_at: effectiveAt }) });
const currentOf = async (subscriberId: string) => {
  const response = await t.inject({ method: 'GET', url: `/platform/v1/subscriber/${subscriberId}/status`, headers: bearer(token) });
  return response.json().entitlements[0] as { status: string; plan: string | null };
};
const history = (subscriberId: string) =>
  t.app
    .get(DataSource)
    .query(`SELECT old_status, new_status, stale, effective_at FROM entitlement_history WHERE partner_id = $1 AND subscriber_id = $2 ORDER BY id`, [
      partnerId,
      subscriberId,
    ]);

it('acknowledges a stale write with applied: false, changes nothing and records it as stale', async () => {
  expect((await write('late-1', 'active', '2026-11-01T10:00:00Z')).json()).toEqual({ ok: true, applied: true });
  const stale = await write('late-1', 'canceled', '2026-11-01T09:00:00Z');
  expect(stale.statusCode).toBe(200);
  expect(stale.json()).toEqual({ ok: true, applied: false });
  expect((await currentOf('late-1')).status).toBe('active');
  expect(await history('late-1')).toEqual([
    { old_status: null, new_status: 'active', stale: false, effective_at: new Date('2026-11-01T10:00:00Z') },
    { old_status: 'active', new_status: 'canceled', stale: true, effective_at: new Date('2026-11-01T09:00:00Z') },
  ]);
});

it('treats a repeated state with a newer instant as a confirmation: an older change arriving after it is stale', async () => {
  await write('confirm-1', 'active', '2026-11-01T10:00:00Z');
  expect((await write('confirm-1', 'active', '2026-11-01T12:00:00Z')).json()).toEqual({ ok: true, applied: true });
  expect((await write('confirm-1', 'suspended', '2026-11-01T11:00:00Z')).json()).toEqual({ ok: true, applied: false });
  expect((await currentOf('confirm-1')).status).toBe('active');
});

it('judges a write without effective_at by its time of receipt', async () => {
  await write('receipt-1', 'active', '2026-11-01T10:00:00Z');
  expect((await write('receipt-1', 'canceled')).json()).toEqual({ ok: true, applied: true });
  expect((await write('receipt-1', 'active', '2026-11-01T11:00:00Z')).json()).toEqual({ ok: true, applied: false });
  expect((await currentOf('receipt-1')).status).toBe('canceled');
});

it('ends with the state of the latest effective_at, whatever order the same writes arrive in', async () => {
  let run = 0;
  const writeArb = fc.record({
    status: fc.constantFrom('active', 'suspended', 'canceled'),
    plan: fc.constantFrom('audio_standard', 'audio_early'),
    minute: fc.integer({ min: 0, max: 10_000 }),
  });
  await fc.assert(
    fc.asyncProperty(fc.uniqueArray(writeArb, { minLength: 1, maxLength: 6, selector: (w) => w.minute }), async (writes) => {
      const subscriberId = `order-${run++}`;
      for (const w of writes) {
        const effectiveAt = new Date(Date.UTC(2026, 9, 1) + w.minute * 60_000).toISOString();
        expect((await write(subscriberId, w.status, effectiveAt, w.plan)).statusCode).toBe(200);
      }
      const latest = writes.reduce((a, b) => (b.minute > a.minute ? b : a));
      expect(await currentOf(subscriberId)).toMatchObject({ status: latest.status, plan: latest.plan });
    }),
    { numRuns: 40 },
  );
});

it('leaves the newer of two racing writes with different effective_at, every time', async () => {
  const pairs = Array.from({ length: 12 }, (_, i) => i);
  await Promise.all(
    pairs.map(async (i) => {
      const subscriberId = `race-${i}`;
      const newer = write(subscriberId, i % 2 ? 'canceled' : 'active', '2026-11-02T10:00:01Z');
      const older = write(subscriberId, i % 2 ? 'active' : 'canceled', '2026-11-02T10:00:00Z');
      const [a, b] = await Promise.all(i % 3 ? [newer, older] : [older, newer]);
      expect([a.statusCode, b.statusCode]).toEqual([200, 200]);
      expect((await currentOf(subscriberId)).status).toBe(i % 2 ? 'canceled' : 'active');
    }),
  );
});

it.each([
  ['not a date', 'effective_at must be an ISO 8601 date-time'],
  ['2026-11-01', 'effective_at must be an ISO 8601 date-time'],
  ['2026-11-01T10:00:00', 'effective_at must be an ISO 8601 date-time'],
  ['0000-01-01T00:00:00Z', 'effective_at must be an ISO 8601 date-time'],
  ['2026-13-01T10:00:00Z', 'effective_at must be an ISO 8601 date-time'],
])('answers 400 invalid_request for effective_at %j', async (value, message) => {
  const response = await write('bad-instant', 'active', value);
  expect(response.statusCode).toBe(400);
  expect(response.json()).toEqual({ error: 'invalid_request', error_description: expect.stringContaining(message) });
});

it('answers 400 invalid_request for an effective_at more than 5 minutes in the future', async () => {
  const response = await write('future-1', 'active', new Date(Date.now() + 10 * 60_000).toISOString());
  expect(response.statusCode).toBe(400);
  expect(response.json()).toEqual({ error: 'invalid_request', error_description: expect.stringContaining('5 minutes') });
  expect(await currentOf('future-1')).toBeUndefined();
});

describe('in live, a settled period cannot be rewritten', () => {
  let live: string;
  beforeAll(async () => {
    live = await t.token(await t.partner());
  });
  const writeLive = (subscriberId: string, status: string, effectiveAt: string) =>
    t.inject({
      method: 'POST',
      url: '/platform/v1/entitlements',
      headers: bearer(live),
      payload: { subscriber_id: subscriberId, product: 'textapp', status, effective_at: effectiveAt },
    });
  const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();

  it('accepts an effective_at up to 72 hours back', async () => {
    expect((await writeLive('settled-1', 'active', hoursAgo(71.9))).json()).toEqual({ ok: true, applied: true });
  });

  it('answers 400 naming effective_at for one further back, and changes nothing', async () => {
    expect((await writeLive('settled-2', 'active', hoursAgo(1))).statusCode).toBe(200);
    const response = await writeLive('settled-2', 'canceled', hoursAgo(72.1));
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: 'invalid_request',
      error_description: expect.stringMatching(/^effective_at must be at most 72 hours in the past/),
    });
    const status = await t.inject({ method: 'GET', url: '/platform/v1/subscriber/settled-2/status', headers: bearer(live) });
    expect(status.json().entitlements[0].status).toBe('active');
  });

  it('while the sandbox accepts any past instant', async () => {
    expect((await write('sandbox-past', 'active', '2001-01-01T00:00:00Z')).json()).toEqual({ ok: true, applied: true });
  });
});
