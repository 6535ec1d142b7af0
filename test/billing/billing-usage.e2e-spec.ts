import { DataSource } from 'typeorm';
import { bearer, useTestApp } from '../support/test-app.js';

/**
 * DECISIONS 25: billing per period, from entitlement histories built through the API
 * (`effective_at` places each change in the past), across months, offsets and the current month.
 * Sandbox credentials: only the sandbox accepts an `effective_at` more than 72 hours back
 * (DECISIONS 24), and a sandbox caller's usage counts the sandbox the same way.
 */
const t = useTestApp();

async function partner() {
  const credential = await t.partner({ environment: 'sandbox' });
  const token = await t.token(credential);
  const change = async (subscriberId: string, status: string, effectiveAt?: string) => {
    const response = await t.inject({
      method: 'POST',
      url: '/platform/v1/entitlements',
      headers: bearer(token),
      payload: { subscriber_id: subscriberId, product: 'audioapp', status, ...(effectiveAt && { effective_at: effectiveAt }) },
    });
    expect(response.json()).toEqual({ ok: true, applied: true });
  };
  const usage = async (period: string) => {
    const response = await t.inject({ method: 'GET', url: `/platform/v1/billing-usage?product=audioapp&period=${period}`, headers: bearer(token) });
    return { status: response.statusCode, body: response.json() };
  };
  return { credential, change, usage };
}

it('gives a past month its count at the end, its peak and its mean of 00:00 UTC counts', async () => {
  const { change, usage } = await partner();
  await change('a', 'active', '2026-09-10T08:00:00Z');
  await change('a', 'canceled', '2026-10-05T12:00:00Z');
  await change('b', 'active', '2026-10-01T00:00:00Z'); // at the month's first instant: counted from day 1
  await change('b', 'suspended', '2026-10-20T00:00:00Z'); // at 00:00: not counted on the 20th
  await change('b', 'active', '2026-10-25T00:00:00Z');
  await change('c', 'active', '2026-10-31T23:59:59Z'); // after the last 00:00 of the month
  await change('e', 'active', '2026-10-01T02:00:00+03:00'); // 2026-09-30T23:00Z: active when October starts
  await change('e', 'canceled', '2026-10-31T23:30:00-01:00'); // 2026-11-01T00:30Z: after October

  // 00:00 counts: 1st–5th 3, 6th–19th 2, 20th–24th 1, 25th–31st 2 → (15 + 28 + 5 + 14) / 31 = 2
  expect(await usage('2026-10')).toEqual({
    status: 200,
    body: {
      product: 'audioapp',
      period: '2026-10',
      active_count: 2,
      note: expect.any(String),
      period_active_at_end: 3,
      period_peak_active: 3,
      period_average_daily_active: 2,
      history_complete: true,
    },
  });
  // September: only a (from the 10th, counted from the 11th) and e's last hour.
  expect((await usage('2026-09')).body).toMatchObject({
    period_active_at_end: 2,
    period_peak_active: 2,
    period_average_daily_active: Math.round((20 / 30) * 100) / 100,
  });
  // Before any change: nothing, and nothing is missing from the history.
  expect((await usage('2026-08')).body).toMatchObject({
    period_active_at_end: 0,
    period_peak_active: 0,
    period_average_daily_active: 0,
    history_complete: true,
  });
});

it('measures the current month up to now, over its days so far', async () => {
  const { change, usage } = await partner();
  const now = new Date();
  const month = now.toISOString().slice(0, 7);
  await change('early', 'active', `${month}-01T00:00:00Z`);
  await change('today', 'active');
  // 'today' is active only since after this morning's 00:00: it counts at the end, not in the mean.
  expect((await usage(month)).body).toMatchObject({
    period: month,
    active_count: 2,
    period_active_at_end: 2,
    period_peak_active: 2,
    period_average_daily_active: 1,
    history_complete: true,
  });
});

it('says when the history does not reach back to the period, and refuses a month not begun', async () => {
  const { credential, usage } = await partner();
  // A record written before the history kept changes (an import of old data).
  await t.app
    .get(DataSource)
    .query(
      `INSERT INTO entitlements (partner_id, environment, subscriber_id, product, status, internal_plan) VALUES ($1, 'sandbox', 'legacy', 'audioapp', 'active', 'audio_standard')`,
      [credential.partner_id],
    );
  expect((await usage('2026-10')).body).toMatchObject({ active_count: 1, history_complete: false });

  const next = new Date();
  next.setUTCMonth(next.getUTCMonth() + 1, 1);
  const future = await usage(next.toISOString().slice(0, 7));
  expect(future.status).toBe(400);
  expect(future.body).toEqual({ error: 'invalid_request', error_description: expect.stringContaining('has not begun') });
});
