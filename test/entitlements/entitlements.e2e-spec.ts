import { DataSource } from 'typeorm';
import { EntitlementsService } from '../../src/modules/entitlements/index.js';
import { bearer, useTestApp } from '../support/test-app.js';

const t = useTestApp();
let token: string;
let partnerId: string;

beforeAll(async () => {
  const credential = await t.partner();
  partnerId = credential.partner_id;
  token = await t.token(credential);
});

const post = (body: unknown, auth = token) => t.inject({ method: 'POST', url: '/platform/v1/entitlements', headers: bearer(auth), payload: body as object });
const history = (subscriberId: string) =>
  t.app
    .get(DataSource)
    .query(`SELECT old_status, new_status, internal_plan FROM entitlement_history WHERE partner_id = $1 AND subscriber_id = $2 ORDER BY id`, [
      partnerId,
      subscriberId,
    ]);

describe('POST /platform/v1/entitlements', () => {
  it('creates, then updates the one record, answering 200 {ok: true}', async () => {
    const created = await post({ subscriber_id: 'sub-1', product: 'textapp', status: 'active' });
    expect(created.statusCode).toBe(200);
    expect(created.json()).toEqual({ ok: true, applied: true });
    expect((await post({ subscriber_id: 'sub-1', product: 'textapp', status: 'suspended' })).statusCode).toBe(200);
    const status = await t.inject({ method: 'GET', url: '/platform/v1/subscriber/sub-1/status', headers: bearer(token) });
    expect(status.statusCode).toBe(200);
    expect(status.json()).toEqual({
      subscriber_id: 'sub-1',
      entitlements: [{ product: 'textapp', status: 'suspended', plan: null, updated_at: expect.any(String) }],
    });
    expect(await history('sub-1')).toEqual([
      { old_status: null, new_status: 'active', internal_plan: 'text_standard' },
      { old_status: 'active', new_status: 'suspended', internal_plan: 'text_standard' },
    ]);
  });

  it('is safe to repeat: the same call changes nothing and appends no history', async () => {
    for (let i = 0; i < 3; i++) await post({ subscriber_id: 'sub-2', product: 'audioapp', status: 'active', plan: 'audio_early' });
    expect(await history('sub-2')).toHaveLength(1);
  });

  it.each([
    [{ product: 'textapp', status: 'active' }, 'subscriber_id'],
    [{ subscriber_id: 's', status: 'active' }, 'product'],
    [{ subscriber_id: 's', product: 'textapp' }, 'status'],
    [{ subscriber_id: 's', product: 'newsapp', status: 'active' }, 'product'],
    [{ subscriber_id: 's', product: 'textapp', status: 'paused' }, 'status'],
    [{ subscriber_id: 'bad id!', product: 'textapp', status: 'active' }, 'subscriber_id'],
    [{ subscriber_id: 'x'.repeat(129), product: 'textapp', status: 'active' }, 'subscriber_id'],
    [{ subscriber_id: 's', product: 'textapp', status: 'active', plan: 7 }, 'plan'],
    [{ subscriber_id: 's', product: 'textapp', status: 'active', colour: 'red' }, 'colour'],
  ])('answers 400 invalid_request naming the field for %j', async (body, field) => {
    const response = await post(body);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: 'invalid_request', error_description: expect.stringContaining(field) });
  });

  it('answers 400 invalid_request for a body that is not JSON', async () => {
    const response = await t.inject({
      method: 'POST',
      url: '/platform/v1/entitlements',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      payload: '{"subscriber_id":',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('invalid_request');
  });

  it('answers 413 invalid_request for a body over 64 KiB', async () => {
    const response = await post({ subscriber_id: 's', product: 'textapp', status: 'active', plan: 'x'.repeat(70_000) });
    expect(response.statusCode).toBe(413);
    expect(response.json().error).toBe('invalid_request');
  });

  it('answers 403 insufficient_scope without platform:entitlements:write', async () => {
    const narrow = await t.token(await t.partner({ scopes: ['platform:billing:read'] }));
    const response = await post({ subscriber_id: 's', product: 'textapp', status: 'active' }, narrow);
    expect(response.statusCode).toBe(403);
    expect(response.json().error).toBe('insufficient_scope');
  });

  it('leaves exactly one record and a consistent history under 20 parallel identical and conflicting writes', async () => {
    const statuses = ['active', 'suspended', 'canceled', 'active'] as const;
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => post({ subscriber_id: 'sub-race', product: 'textapp', status: statuses[i % 4] })));
    expect(responses.every((r) => r.statusCode === 200)).toBe(true);
    const records = await t.app.get(DataSource).query(`SELECT status FROM entitlements WHERE partner_id = $1 AND subscriber_id = 'sub-race'`, [partnerId]);
    expect(records).toHaveLength(1);
    const changes = await history('sub-race');
    // Each accepted change continues from the previous one, and the last is the record's state.
    expect(changes[0].old_status).toBeNull();
    for (let i = 1; i < changes.length; i++) expect(changes[i].old_status).toBe(changes[i - 1].new_status);
    expect(changes.at(-1).new_status).toBe(records[0].status);
  });

  it('maps partner plans to internal plans, and keeps the plan when a later write omits it', async () => {
    await t.app.get(EntitlementsService).mapPlan(partnerId, 'gold', 'audio_early');
    await post({ subscriber_id: 'sub-plan', product: 'audioapp', status: 'active', plan: 'gold' });
    await post({ subscriber_id: 'sub-plan', product: 'audioapp', status: 'suspended' });
    expect(await history('sub-plan')).toEqual([
      { old_status: null, new_status: 'active', internal_plan: 'audio_early' },
      { old_status: 'active', new_status: 'suspended', internal_plan: 'audio_early' },
    ]);
  });

  it('keeps partners apart: the same subscriber id under another partner is another person', async () => {
    const other = await t.token(await t.partner());
    await post({ subscriber_id: 'shared-42', product: 'textapp', status: 'active' });
    await post({ subscriber_id: 'shared-42', product: 'textapp', status: 'canceled' }, other);
    const mine = await t.inject({ method: 'GET', url: '/platform/v1/subscriber/shared-42/status', headers: bearer(token) });
    const theirs = await t.inject({ method: 'GET', url: '/platform/v1/subscriber/shared-42/status', headers: bearer(other) });
    expect(mine.json().entitlements[0].status).toBe('active');
    expect(theirs.json().entitlements[0].status).toBe('canceled');
  });
});

describe('GET /platform/v1/subscriber/{id}/status', () => {
  it('answers 200 with an empty list for an unknown subscriber', async () => {
    const response = await t.inject({ method: 'GET', url: '/platform/v1/subscriber/nobody/status', headers: bearer(token) });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ subscriber_id: 'nobody', entitlements: [] });
  });

  it('answers 400 invalid_request for a malformed subscriber id', async () => {
    const response = await t.inject({ method: 'GET', url: '/platform/v1/subscriber/a%20b/status', headers: bearer(token) });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('invalid_request');
  });
});

describe('GET /platform/v1/billing-usage', () => {
  it('counts active entitlements of the product and repeats the simplification note', async () => {
    const credential = await t.partner();
    const billing = await t.token(credential);
    for (const [subscriber, status] of [
      ['b1', 'active'],
      ['b2', 'active'],
      ['b3', 'suspended'],
    ]) {
      await post({ subscriber_id: subscriber, product: 'audioapp', status }, billing);
    }
    const month = new Date().toISOString().slice(0, 7);
    const response = await t.inject({ method: 'GET', url: `/platform/v1/billing-usage?product=audioapp&period=${month}`, headers: bearer(billing) });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ product: 'audioapp', period: month, active_count: 2, note: expect.stringMatching(/simplification/) });
  });

  it('never counts sandbox entitlements in a live bill', async () => {
    const live = await t.partner();
    const sandboxCredential = await t.app
      .get((await import('../../src/modules/identity/index.js')).PartnerCredentialsService)
      .createCredential(live.partner_id, undefined, 'sandbox');
    const sandbox = await t.token(sandboxCredential);
    await post({ subscriber_id: 'sb-1', product: 'textapp', status: 'active' }, sandbox);
    const liveUsage = await t.inject({ method: 'GET', url: '/platform/v1/billing-usage?product=textapp', headers: bearer(await t.token(live)) });
    expect(liveUsage.json().active_count).toBe(0);
    const sandboxUsage = await t.inject({ method: 'GET', url: '/platform/v1/billing-usage?product=textapp', headers: bearer(sandbox) });
    expect(sandboxUsage.json().active_count).toBe(1);
  });

  it.each([
    ['', 'product'],
    ['?product=textapp&period=2026-13', 'period'],
    ['?product=books', 'product'],
  ])('answers 400 invalid_request for %s', async (query, field) => {
    const response = await t.inject({ method: 'GET', url: `/platform/v1/billing-usage${query}`, headers: bearer(token) });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: 'invalid_request', error_description: expect.stringContaining(field) });
  });

  it('answers 403 insufficient_scope without platform:billing:read', async () => {
    const narrow = await t.token(await t.partner({ scopes: ['platform:entitlements:write'] }));
    const response = await t.inject({ method: 'GET', url: '/platform/v1/billing-usage?product=textapp', headers: bearer(narrow) });
    expect(response.statusCode).toBe(403);
    expect(response.json().error).toBe('insufficient_scope');
  });
});
