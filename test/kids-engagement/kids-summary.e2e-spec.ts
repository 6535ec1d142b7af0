import { DataSource } from 'typeorm';
import type { IssuedCredential } from '../../src/modules/identity/index.js';
import { KidsMonthFiguresService } from '../../src/modules/kids-engagement/application/kids-month-figures.service.js';
import { oneMonthWindow } from '../../src/modules/kids-engagement/application/kids-month-window.js';
import { KidsActivityImporter } from '../../src/modules/kids-engagement/index.js';
import { bearer, useTestApp } from '../support/test-app.js';
import { kidsServiceToken } from '../support/tokens.js';

/**
 * GET /kids/v1/engagement/summary (contract 2 and 4.3, DECISIONS 15): active accounts from
 * the kidsapp entitlement history, stories and minutes from imported kids activity, over
 * whole settled months whose figures are fixed at their first answer.
 */
const t = useTestApp();
let db: DataSource;

beforeAll(async () => {
  db = t.app.get(DataSource);
});

type Change = [account: string, status: 'active' | 'suspended' | 'canceled', at: string];

/** Entitlement history as the platform would have written it over time (each account's changes in time order). */
async function history(partner: IssuedCredential, changes: Change[], product = 'kidsapp', environment = 'live') {
  for (const [account, status, at] of changes) {
    await db.query(
      `INSERT INTO entitlement_history (partner_id, environment, subscriber_id, product, old_status, new_status, internal_plan, changed_by, changed_at, effective_at)
       VALUES ($1, $2, $3, $4, (SELECT new_status FROM entitlement_history WHERE partner_id = $1 AND environment = $2 AND subscriber_id = $3
                                  AND product = $4 AND NOT stale ORDER BY effective_at DESC, id DESC LIMIT 1),
               $5, 'kids_standard', 'test', $6, $6)`,
      [partner.partner_id, environment, account, product, status, at],
    );
  }
}

/** `count` accounts activated on 2026-09-01 (or `since`) and never changed since. */
const steadyAccounts = (count: number, prefix = 'family', since = '2026-09-01T12:00:00Z'): Change[] =>
  Array.from({ length: count }, (_, i) => [`${prefix}-${i + 1}`, 'active', since]);

const kidsScope = { scopes: ['kidsapp:engagement:read' as const] };

const session = (account: string, child: string, story: string, minutes: number, completedAt: string | null, occurredAt: string) =>
  JSON.stringify({ account_id: account, child_ref: child, story_id: story, minutes, completed_at: completedAt, occurred_at: occurredAt });

/** One session of no minutes and no completion per account: activity that adds to no figure. */
const quietSessions = (accounts: string[], occurredAt: string) =>
  accounts.map((account) => session(account, `kid-of-${account}`, 'the-moon', 0, null, occurredAt));

const accountsOf = (changes: Change[]) => [...new Set(changes.map(([account]) => account))];

async function activity(partner: IssuedCredential, lines: string[], environment: 'live' | 'sandbox' = 'live') {
  await t.app.get(KidsActivityImporter).import(partner.partner_id, lines, { environment });
}

async function summary(token: string, query = 'period_start=2026-10-01&period_end=2026-10-31') {
  return t.inject({ method: 'GET', url: `/kids/v1/engagement/summary?${query}`, headers: bearer(token) });
}

/** Every string anywhere in a JSON value, keys included. */
const stringsIn = (value: unknown): string[] =>
  typeof value === 'string' ? [value] : value && typeof value === 'object' ? Object.entries(value).flatMap(([key, inner]) => [key, ...stringsIn(inner)]) : [];

describe('active accounts', () => {
  it('withholds every figure at 29 active accounts and gives them at 30', async () => {
    const partner = await t.partner(kidsScope);
    const steady = steadyAccounts(29, 'family', '2026-08-01T12:00:00Z');
    await history(partner, [...steady, ['family-30', 'active', '2026-10-05T12:00:00Z']]);
    await activity(partner, [
      ...quietSessions(accountsOf(steady), '2026-09-20T18:00:00Z'),
      ...quietSessions([...accountsOf(steady), 'family-30'], '2026-10-20T18:00:00Z'),
    ]);
    const token = await t.token(partner);

    const september = await summary(token, 'period_start=2026-09-01&period_end=2026-09-30');
    expect(september.statusCode).toBe(200);
    expect(september.json()).toEqual({
      period_start: '2026-09-01',
      period_end: '2026-09-30',
      active_accounts: null,
      stories_completed: null,
      avg_minutes_per_active_account: null,
      min_sample_threshold: 30,
      suppressed: true,
      generated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    expect((await summary(token)).json()).toMatchObject({ active_accounts: 30, stories_completed: 0, avg_minutes_per_active_account: 0, suppressed: false });
  });

  it('counts an entitlement active at any instant of the window, and only those', async () => {
    const partner = await t.partner(kidsScope);
    const other = await t.partner(kidsScope);
    await history(partner, [
      ...steadyAccounts(30),
      // Counted: active when the window opens until one second into it.
      ['ends-just-inside', 'active', '2026-09-01T00:00:00Z'],
      ['ends-just-inside', 'canceled', '2026-10-01T00:00:01Z'],
      // Counted: activated in the last second of the window.
      ['starts-last-second', 'active', '2026-10-31T23:59:59Z'],
      // Counted: canceled long before, active again for one day inside.
      ['comes-back', 'active', '2026-06-01T00:00:00Z'],
      ['comes-back', 'canceled', '2026-08-01T00:00:00Z'],
      ['comes-back', 'active', '2026-10-15T00:00:00Z'],
      ['comes-back', 'suspended', '2026-10-16T00:00:00Z'],
      // Not counted: ended exactly when the window opens.
      ['ends-at-start', 'active', '2026-09-01T00:00:00Z'],
      ['ends-at-start', 'canceled', '2026-10-01T00:00:00Z'],
      // Not counted: ended the second before.
      ['ends-before', 'active', '2026-09-01T00:00:00Z'],
      ['ends-before', 'suspended', '2026-09-30T23:59:59Z'],
      // Not counted: activated the instant after the window.
      ['starts-after', 'active', '2026-11-01T00:00:00Z'],
      // Not counted: suspended before the window, canceled inside it, never active in it.
      ['suspended-then-canceled', 'active', '2026-09-01T00:00:00Z'],
      ['suspended-then-canceled', 'suspended', '2026-09-15T00:00:00Z'],
      ['suspended-then-canceled', 'canceled', '2026-10-10T00:00:00Z'],
    ]);
    // Not counted: another product, the sandbox, another partner.
    await history(partner, [['reads-novels', 'active', '2026-09-01T00:00:00Z']], 'textapp');
    await history(partner, [['sandbox-family', 'active', '2026-09-01T00:00:00Z']], 'kidsapp', 'sandbox');
    await history(other, [['family-of-other', 'active', '2026-09-01T00:00:00Z']]);
    await activity(partner, quietSessions(accountsOf(steadyAccounts(30)), '2026-10-20T18:00:00Z'));

    expect((await summary(await t.token(partner))).json()).toMatchObject({ active_accounts: 33, suppressed: false });
  });

  it('counts an entitlement written through the platform, in the sandbox with sandbox sessions', async () => {
    const partner = await t.partner({ scopes: ['kidsapp:engagement:read', 'platform:entitlements:write'], environment: 'sandbox' });
    await history(partner, steadyAccounts(29), 'kidsapp', 'sandbox');
    await activity(partner, quietSessions([...accountsOf(steadyAccounts(29)), 'family-new'], '2026-10-20T00:00:00Z'), 'sandbox');
    const token = await t.token(partner);
    // The sandbox accepts a change dated in a settled month (DECISIONS 17).
    const activate = await t.inject({
      method: 'POST',
      url: '/platform/v1/entitlements',
      headers: bearer(token),
      payload: { subscriber_id: 'family-new', product: 'kidsapp', status: 'active', effective_at: '2026-10-10T00:00:00Z' },
    });
    expect(activate.statusCode).toBe(200);
    expect((await summary(token)).json()).toMatchObject({ active_accounts: 30, suppressed: false });
  });
});

describe('accounts with activity', () => {
  it('withholds every figure while fewer than 30 active accounts have activity, however many entitlements', async () => {
    const partner = await t.partner(kidsScope);
    await history(partner, steadyAccounts(30, 'posted'));
    await activity(partner, [session('posted-1', 'the-only-child', 'the-dragon', 42, '2026-10-03T00:00:00Z', '2026-10-03T00:00:00Z')]);

    expect((await summary(await t.token(partner))).json()).toMatchObject({
      active_accounts: null,
      stories_completed: null,
      avg_minutes_per_active_account: null,
      suppressed: true,
    });
  });
});

describe('month by month', () => {
  it('withholds a window whose months together pass both thresholds when one month alone does not', async () => {
    const partner = await t.partner(kidsScope);
    const steady = steadyAccounts(29, 'family', '2026-08-01T12:00:00Z');
    // September: 29 entitled accounts; October: 30. Both months: 30 entitled, 30 with activity.
    await history(partner, [...steady, ['family-30', 'active', '2026-10-05T12:00:00Z']]);
    await activity(partner, [...quietSessions(accountsOf(steady), '2026-09-20T18:00:00Z'), ...quietSessions(['family-30'], '2026-10-06T18:00:00Z')]);
    // Another partner: 30 entitled throughout; 30 with activity in September, one in October.
    const other = await t.partner(kidsScope);
    await history(other, steadyAccounts(30, 'family', '2026-08-01T12:00:00Z'));
    await activity(other, [
      ...quietSessions(accountsOf(steadyAccounts(30)), '2026-09-20T18:00:00Z'),
      session('family-1', 'kid-lia', 'the-moon', 35, '2026-10-07T18:30:00Z', '2026-10-07T18:00:00Z'),
    ]);
    const both = 'period_start=2026-09-01&period_end=2026-10-31';

    for (const credential of [partner, other]) {
      const token = await t.token(credential);
      expect((await summary(token, both)).json()).toMatchObject({
        active_accounts: null,
        stories_completed: null,
        avg_minutes_per_active_account: null,
        suppressed: true,
      });
    }
    expect((await summary(await t.token(other), 'period_start=2026-09-01&period_end=2026-09-30')).json()).toMatchObject({
      active_accounts: 30,
      suppressed: false,
    });
  });

  it('sums stories and minutes over the months and counts each entitled account once', async () => {
    const partner = await t.partner(kidsScope);
    // 30 accounts all along, one more in September only and one more in October only.
    await history(partner, [
      ...steadyAccounts(30, 'family', '2026-08-01T12:00:00Z'),
      ['september-only', 'active', '2026-08-01T12:00:00Z'],
      ['september-only', 'canceled', '2026-09-15T00:00:00Z'],
      ['october-only', 'active', '2026-10-01T00:00:00Z'],
    ]);
    const everyone = accountsOf(steadyAccounts(30));
    await activity(partner, [
      ...quietSessions(everyone, '2026-09-20T18:00:00Z'),
      ...quietSessions(everyone, '2026-10-20T18:00:00Z'),
      session('family-1', 'kid-lia', 'the-moon', 40, '2026-09-03T19:00:00Z', '2026-09-03T18:30:00Z'),
      session('family-2', 'kid-leo', 'the-moon', 24, '2026-10-03T19:00:00Z', '2026-10-03T18:30:00Z'),
    ]);
    expect((await summary(await t.token(partner), 'period_start=2026-09-01&period_end=2026-10-31')).json()).toMatchObject({
      active_accounts: 32,
      stories_completed: 2,
      avg_minutes_per_active_account: 2, // (40 + 24) / 32
      suppressed: false,
    });
  });
});

describe('fixed figures', () => {
  it('answers a repeat exactly as the first time, whatever was written since, backdated cancels included', async () => {
    const partner = await t.partner({ scopes: ['kidsapp:engagement:read', 'platform:entitlements:write'], environment: 'sandbox' });
    const tenant = { partnerId: partner.partner_id, environment: 'sandbox' as const };
    const token = await t.token(partner);
    const entitle = async (account: string, status: 'active' | 'canceled', at: string) => {
      const written = await t.inject({
        method: 'POST',
        url: '/platform/v1/entitlements',
        headers: bearer(token),
        payload: { subscriber_id: account, product: 'kidsapp', status, effective_at: at },
      });
      expect(written.statusCode).toBe(200);
    };
    // The sandbox accepts changes dated in settled months (DECISIONS 17).
    for (const account of accountsOf(steadyAccounts(31))) await entitle(account, 'active', '2026-08-01T12:00:00Z');
    await activity(
      partner,
      [
        ...quietSessions(accountsOf(steadyAccounts(31)), '2026-10-20T18:00:00Z'),
        session('family-1', 'kid-lia', 'the-dragon', 62, '2026-10-03T19:00:00Z', '2026-10-03T18:00:00Z'),
      ],
      'sandbox',
    );
    const first = await summary(token);
    expect(first.json()).toMatchObject({ active_accounts: 31, stories_completed: 1, avg_minutes_per_active_account: 2, suppressed: false });

    // A cancel dated back before the month, and a session written without kids:import: both
    // change what October's data says...
    await entitle('family-1', 'canceled', '2026-09-15T00:00:00Z');
    await db.query(
      `INSERT INTO kids_activity (partner_id, environment, account_id, child_ref, story_id, occurred_at, minutes, completed_at)
       VALUES ($1, 'sandbox', 'family-2', 'kid-ana', 'the-moon', '2026-10-09T18:00:00Z', 300, '2026-10-09T19:00:00Z')`,
      [partner.partner_id],
    );
    const measured = await t.app.get(KidsMonthFiguresService).measures(tenant, oneMonthWindow('2026-10-01'));
    expect(measured).toMatchObject({ activeAccounts: 30, storiesCompleted: 1, minutesRead: 300 });

    // ...and the answer is the same, to the instant it was generated.
    const again = await summary(token);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
  });

  it('fixes one set of figures when several first requests for a month arrive at once', async () => {
    const partner = await t.partner(kidsScope);
    await history(partner, steadyAccounts(30));
    await activity(partner, quietSessions(accountsOf(steadyAccounts(30)), '2026-10-20T18:00:00Z'));
    const token = await t.token(partner);
    const answers = await Promise.all(Array.from({ length: 6 }, () => summary(token)));
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(6).fill(200));
    expect(new Set(answers.map((answer) => answer.body)).size).toBe(1);
    expect(await db.query(`SELECT count(*)::int AS n FROM kids_fixed_months WHERE partner_id = $1`, [partner.partner_id])).toEqual([{ n: 1 }]);
  });
});

describe('stories and minutes', () => {
  let partner: IssuedCredential;
  let token: string;

  beforeAll(async () => {
    partner = await t.partner(kidsScope);
    token = await t.token(partner);
    await history(partner, [...steadyAccounts(30), ['family-gone', 'active', '2026-01-01T00:00:00Z'], ['family-gone', 'canceled', '2026-02-01T00:00:00Z']]);
    await activity(partner, [
      // family-1: two children, 20 + 10 minutes, one story completed in October.
      session('family-1', 'kid-lia-9c1e', 'the-dragon', 20, '2026-10-03T19:00:00Z', '2026-10-03T18:40:00Z'),
      session('family-1', 'kid-leo-9c1e', 'the-moon', 10, null, '2026-10-04T18:00:00Z'),
      // family-2: 30 minutes; the story was completed on November 1st: not in October.
      session('family-2', 'kid-ana-9c1e', 'the-moon', 30, '2026-11-01T00:00:00Z', '2026-10-31T23:40:00Z'),
      // family-3: completed at the first instant of the period; 15 minutes.
      session('family-3', 'kid-rui-9c1e', 'the-dragon', 15, '2026-10-01T00:00:00Z', '2026-10-01T00:00:00Z'),
      // Read in September: outside the period.
      session('family-4', 'kid-eva-9c1e', 'the-dragon', 50, '2026-09-30T20:00:00Z', '2026-09-30T19:00:00Z'),
      // An account with no entitlement in October: neither its story nor its minutes count.
      session('family-gone', 'kid-ivo-9c1e', 'the-moon', 600, '2026-10-10T10:00:00Z', '2026-10-10T09:00:00Z'),
      // The other active accounts read too, so that 30 accounts have activity.
      ...quietSessions(accountsOf(steadyAccounts(30)).slice(3), '2026-10-20T18:00:00Z'),
    ]);
  });

  it('sums the active accounts’ completed stories and averages their minutes', async () => {
    expect((await summary(token)).json()).toMatchObject({
      active_accounts: 30,
      stories_completed: 2, // family-1, family-3
      avg_minutes_per_active_account: 2.5, // (20 + 10 + 30 + 15) / 30
      suppressed: false,
    });
  });

  it('names no account or child anywhere in the answer', async () => {
    const strings = stringsIn((await summary(token)).json());
    expect(strings.filter((s) => /family-|kid-|9c1e/.test(s))).toEqual([]);
  });
});

describe('access', () => {
  it("accepts a children's service token and a platform token carrying the scope", async () => {
    const partner = await t.partner({ scopes: ['kidsapp:engagement:read', 'platform:billing:read', 'textapp:analytics:read'] });
    expect((await summary(await kidsServiceToken(t, partner))).statusCode).toBe(200);
    expect((await summary(await t.token(partner))).statusCode).toBe(200);
  });

  it("refuses a children's service token on the platform and on the text and audio service (401)", async () => {
    const partner = await t.partner({ scopes: ['kidsapp:engagement:read', 'platform:billing:read', 'textapp:analytics:read'] });
    const token = await kidsServiceToken(t, partner);
    for (const url of ['/platform/v1/billing-usage?product=kidsapp', '/v1/analytics/engagement']) {
      const response = await t.inject({ method: 'GET', url, headers: bearer(token) });
      expect({ url, status: response.statusCode, error: response.json().error }).toEqual({ url, status: 401, error: 'invalid_token' });
    }
  });

  it('refuses a platform token without kidsapp:engagement:read (403)', async () => {
    const response = await summary(await t.token(await t.partner({ scopes: ['platform:billing:read', 'textapp:analytics:read'] })));
    expect(response.statusCode).toBe(403);
    expect(response.json().error).toBe('insufficient_scope');
  });
});

describe('period', () => {
  let token: string;
  beforeAll(async () => {
    token = await t.token(await t.partner(kidsScope));
  });

  const expectInvalidRequest = async (query: string, description: RegExp) => {
    const response = await summary(token, query);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(description) });
  };

  it('accepts twelve whole months and refuses thirteen, naming the nearest accepted window', async () => {
    expect((await summary(token, 'period_start=2024-01-01&period_end=2024-12-31')).statusCode).toBe(200);
    await expectInvalidRequest('period_start=2024-01-01&period_end=2025-01-31', /at most 12.*use period_start=2024-02-01&period_end=2025-01-31\.$/);
  });

  it('refuses a window that is not whole months, naming the nearest one', async () => {
    await expectInvalidRequest(
      'period_start=2026-09-01&period_end=2026-10-30',
      /whole UTC calendar months.*: use period_start=2026-09-01&period_end=2026-10-31\.$/,
    );
    await expectInvalidRequest('period_start=2026-10-02&period_end=2026-10-31', /use period_start=2026-10-01&period_end=2026-10-31\.$/);
  });

  it('refuses a month that has not been over for 72 hours, saying from when it can be asked', async () => {
    const now = new Date();
    const month = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    const end = new Date(next.getTime() - 86_400_000).toISOString().slice(0, 10);
    const askable = new Date(next.getTime() + 72 * 3_600_000).toISOString();
    const response = await summary(token, `period_start=${month.toISOString().slice(0, 10)}&period_end=${end}`);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: 'invalid_request', error_description: expect.stringContaining(`can be asked from ${askable}`) });
    expect(await db.query(`SELECT count(*)::int AS n FROM kids_fixed_months WHERE month = $1`, [month.toISOString().slice(0, 10)])).toEqual([{ n: 0 }]);
  });

  it('refuses an end before the start and a missing or malformed date', async () => {
    await expectInvalidRequest('period_start=2026-10-31&period_end=2026-10-01', /period_end must not be before period_start/);
    await expectInvalidRequest('period_end=2026-10-31', /period_start is required/);
    await expectInvalidRequest('period_start=2026-10-01', /period_end is required/);
    await expectInvalidRequest('period_start=2026-10-01&period_end=31/10/2026', /period_end must be a calendar date/);
  });

  it('refuses any other parameter, such as a subscriber or a child', async () => {
    for (const extra of ['subscriber_id=family-1', 'child_id=kid-lia', 'account_id=family-1', 'product=kidsapp']) {
      await expectInvalidRequest(`period_start=2026-10-01&period_end=2026-10-31&${extra}`, new RegExp(extra.split('=')[0]));
    }
  });
});
