import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { COMMANDS, parseArguments, UsageError } from '../../src/cli/commands.js';
import type { IssuedCredential } from '../../src/modules/identity/index.js';
import { KidsActivityImporter, KidsImportRejected } from '../../src/modules/kids-engagement/index.js';
import { bearer, startTestApp, type TestApp } from '../support/test-app.js';

/** `kids:import FILE --partner ID [--sandbox] [--restate]` (DECISIONS 15, 18): validated line by line, all or nothing. */
let t: TestApp;
let db: DataSource;
let partner: IssuedCredential;
const dir = mkdtempSync(join(tmpdir(), 'prl-kids-import-'));

beforeAll(async () => {
  t = await startTestApp();
  db = t.app.get(DataSource);
  partner = await t.partner({ scopes: ['kidsapp:engagement:read'] });
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => db.query('TRUNCATE kids_activity, kids_fixed_months'));

const session = (n: number, changes: Record<string, unknown> = {}) =>
  JSON.stringify({
    account_id: `family-${n % 40}`,
    child_ref: `kid-${n % 3}`,
    story_id: `story-${n % 7}`,
    minutes: 10,
    completed_at: null,
    occurred_at: new Date(Date.UTC(2026, 9, 1) + n * 60_000).toISOString(),
    ...changes,
  });
/** Lines 1..count, more than one batch of 1000 so that a late error must undo stored batches. */
const sessions = (count: number) => Array.from({ length: count }, (_, i) => session(i + 1));

const storedRows = async () => Number((await db.query('SELECT count(*) AS n FROM kids_activity'))[0].n);

async function runCli(argv: string[]) {
  const command = COMMANDS['kids:import'];
  return command.run(t.app, await command.check(parseArguments(argv, command.options)));
}

function fileWith(name: string, lines: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

describe('kids activity import', () => {
  it('stores every line of a valid file in the live environment of the partner', async () => {
    const result = await t.app.get(KidsActivityImporter).import(partner.partner_id, ['', ...sessions(2500)]);
    expect(result).toEqual({ lines: 2501, records: 2500, inserted: 2500, updated: 0, restated: [] });
    expect(await db.query('SELECT DISTINCT partner_id::text, environment FROM kids_activity')).toEqual([
      { partner_id: partner.partner_id, environment: 'live' },
    ]);
  });

  it('imports nothing when a line after the first batches is bad, and names the line and the field', async () => {
    const lines = [...sessions(2500), session(2501, { minutes: -5 }), ...sessions(10), session(9, { occurred_at: 'yesterday' })];
    const importing = t.app.get(KidsActivityImporter).import(partner.partner_id, lines);
    await expect(importing).rejects.toThrow(KidsImportRejected);
    await expect(importing).rejects.toThrow(/line 2501: minutes must be a number from 0 to 1440\nline 2512: occurred_at must be/);
    expect(await storedRows()).toBe(0);
  });

  it('imports nothing when the first line is bad', async () => {
    await expect(t.app.get(KidsActivityImporter).import(partner.partner_id, [session(1, { child: 'x' }), ...sessions(5)])).rejects.toThrow(
      /line 1: child is not a field/,
    );
    expect(await storedRows()).toBe(0);
  });

  it('updates, rather than repeats, sessions imported again, the last line of a key winning', async () => {
    const importer = t.app.get(KidsActivityImporter);
    await importer.import(partner.partner_id, sessions(3));
    const again = await importer.import(partner.partner_id, [...sessions(3), session(1, { minutes: 25 }), session(1, { minutes: 30 })]);
    expect(again).toMatchObject({ records: 5, inserted: 0, updated: 3 });
    expect(await storedRows()).toBe(3);
    expect(await db.query(`SELECT minutes::float8 AS minutes FROM kids_activity WHERE account_id = 'family-1'`)).toEqual([{ minutes: 30 }]);
  });
});

describe('the kids:import command', () => {
  it('imports a file and reports what it did', async () => {
    const file = fileWith('good.ndjson', sessions(3));
    expect(await runCli([file, '--partner', partner.partner_id])).toEqual({
      partner_id: partner.partner_id,
      environment: 'live',
      file,
      lines: 3,
      records: 3,
      inserted: 3,
      updated: 0,
    });
  });

  it('leaves the data untouched when the file has a bad line', async () => {
    await expect(runCli([fileWith('bad.ndjson', [...sessions(3), '{"account_id": "family-1"}']), '--partner', partner.partner_id])).rejects.toThrow(
      /nothing was imported.*\nline 4: child_ref is required/s,
    );
    expect(await storedRows()).toBe(0);
  });

  it('refuses an unknown partner, a missing file and a missing --partner as usage errors', async () => {
    const file = fileWith('ok.ndjson', sessions(1));
    await expect(runCli([file, '--partner', '00000000-0000-4000-8000-000000000000'])).rejects.toThrow(
      new UsageError('no partner 00000000-0000-4000-8000-000000000000'),
    );
    await expect(runCli([join(dir, 'missing.ndjson'), '--partner', partner.partner_id])).rejects.toThrow(UsageError);
    await expect(runCli([file])).rejects.toThrow(new UsageError('--partner is required'));
    await expect(runCli(['--partner', partner.partner_id])).rejects.toThrow(new UsageError('give exactly one NDJSON FILE'));
    expect(await storedRows()).toBe(0);
  });
});

describe('months whose figures are fixed', () => {
  /** 30 accounts entitled since August, each with a 10-minute session on October 20th. */
  async function partnerWithOctober(environment: 'live' | 'sandbox' = 'live') {
    const owner = await t.partner({ scopes: ['kidsapp:engagement:read', 'platform:entitlements:write'], environment });
    for (let i = 0; i < 30; i++) {
      await db.query(
        `INSERT INTO entitlement_history (partner_id, environment, subscriber_id, product, old_status, new_status, internal_plan, changed_by, changed_at, effective_at)
         VALUES ($1, $2, $3, 'kidsapp', NULL, 'active', 'kids_standard', 'test', '2026-08-01T00:00:00Z', '2026-08-01T00:00:00Z')`,
        [owner.partner_id, environment, `family-${i}`],
      );
    }
    const october = Array.from({ length: 30 }, (_, i) => session(i, { occurred_at: '2026-10-20T18:00:00Z' }));
    await runCli([fileWith('october.ndjson', october), '--partner', owner.partner_id, ...(environment === 'sandbox' ? ['--sandbox'] : [])]);
    return owner;
  }
  const october = async (owner: IssuedCredential) => {
    const response = await t.inject({
      method: 'GET',
      url: '/kids/v1/engagement/summary?period_start=2026-10-01&period_end=2026-10-31',
      headers: bearer(await t.token(owner)),
    });
    expect(response.statusCode).toBe(200);
    return response.json();
  };
  const rowsOf = async (owner: IssuedCredential) =>
    Number((await db.query('SELECT count(*) AS n FROM kids_activity WHERE partner_id = $1', [owner.partner_id]))[0].n);

  it('are refused whole, naming the month, once an answer covered it', async () => {
    const owner = await partnerWithOctober();
    // Read on September 29th, finished on October 2nd: imported before October was fixed.
    const finishedInOctober = session(4, { occurred_at: '2026-09-29T10:00:00Z', completed_at: '2026-10-02T00:00:00Z' });
    await runCli([fileWith('september.ndjson', [finishedInOctober]), '--partner', owner.partner_id]);
    expect(await october(owner)).toMatchObject({ stories_completed: 1, avg_minutes_per_active_account: 10, suppressed: false });

    const refusal = new UsageError(
      "nothing was imported: the file has sessions in 2026-10, whose figures are fixed (an answer covered them); pass --restate to replace those months' figures with the data after this import",
    );
    const late = [session(1, { occurred_at: '2026-08-29T10:00:00Z' }), session(2, { occurred_at: '2026-10-21T10:00:00Z', minutes: 50 })];
    await expect(runCli([fileWith('late.ndjson', late), '--partner', owner.partner_id])).rejects.toThrow(refusal);
    // A completion in the fixed month is in it, and so is the completion a line replaces.
    const completedInOctober = session(3, { occurred_at: '2026-09-30T23:50:00Z', completed_at: '2026-10-01T00:10:00Z' });
    await expect(runCli([fileWith('completed.ndjson', [completedInOctober]), '--partner', owner.partner_id])).rejects.toThrow(refusal);
    await expect(runCli([fileWith('unfinished.ndjson', [session(4, { occurred_at: '2026-09-29T10:00:00Z' })]), '--partner', owner.partner_id])).rejects.toThrow(
      refusal,
    );
    expect(await rowsOf(owner)).toBe(31);
    // August is not fixed: its sessions are welcome.
    expect(await runCli([fileWith('august.ndjson', [late[0]]), '--partner', owner.partner_id])).toMatchObject({ inserted: 1 });
    expect(await october(owner)).toMatchObject({ stories_completed: 1, avg_minutes_per_active_account: 10 });
  });

  it('are replaced with the data after the import under --restate', async () => {
    const owner = await partnerWithOctober();
    const before = await october(owner);
    const restated = await runCli([
      fileWith('late.ndjson', [session(2, { occurred_at: '2026-10-21T10:00:00Z', minutes: 300 })]),
      '--partner',
      owner.partner_id,
      '--restate',
    ]);
    expect(restated).toMatchObject({ environment: 'live', inserted: 1, restated_months: ['2026-10'] });
    const after = await october(owner);
    expect(after).toMatchObject({ active_accounts: 30, avg_minutes_per_active_account: 20, suppressed: false }); // (300 + 300) / 30
    expect(after.generated_at > before.generated_at).toBe(true);
    // Restating a month nobody asked about replaces nothing.
    expect(
      await runCli([fileWith('august.ndjson', [session(5, { occurred_at: '2026-08-21T10:00:00Z' })]), '--partner', owner.partner_id, '--restate']),
    ).toMatchObject({ restated_months: [] });
  });

  it('are not fixed while an import is under way: the first answer waits for it and counts its sessions', async () => {
    const owner = await partnerWithOctober();
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    async function* slowFile() {
      yield session(2, { occurred_at: '2026-10-21T10:00:00Z', minutes: 150 });
      await gate;
      yield session(3, { occurred_at: '2026-10-22T10:00:00Z', minutes: 150 });
    }
    const importing = t.app.get(KidsActivityImporter).import(owner.partner_id, slowFile());
    const answering = october(owner);
    const waitingForLock = async () =>
      (
        await db.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND wait_event = 'advisory' AND query LIKE '%pg_advisory_xact_lock_shared%'`,
        )
      )[0].n > 0;
    for (let tries = 0; tries < 200 && !(await waitingForLock()); tries++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(await waitingForLock()).toBe(true);
    release();
    await expect(importing).resolves.toMatchObject({ inserted: 2, restated: [] });
    expect(await answering).toMatchObject({ avg_minutes_per_active_account: 20, suppressed: false }); // (300 + 150 + 150) / 30
  });

  it('hold for sandbox sessions, which --sandbox loads and which feed the sandbox summary only', async () => {
    const owner = await partnerWithOctober('sandbox');
    expect(await db.query('SELECT DISTINCT environment FROM kids_activity WHERE partner_id = $1', [owner.partner_id])).toEqual([{ environment: 'sandbox' }]);
    expect(await october(owner)).toMatchObject({ active_accounts: 30, avg_minutes_per_active_account: 10, suppressed: false });
    const late = fileWith('late.ndjson', [session(2, { occurred_at: '2026-10-21T10:00:00Z' })]);
    await expect(runCli([late, '--partner', owner.partner_id, '--sandbox'])).rejects.toThrow(/sessions in 2026-10,/);
    // The live October of the same partner is another month: not fixed, and empty.
    expect(await runCli([late, '--partner', owner.partner_id])).toMatchObject({ environment: 'live', inserted: 1 });
  });
});

describe('sandbox sessions on a test clock', () => {
  it('keep a subscriber off a clock, and go with the clock’s clean slate', async () => {
    const owner = await t.partner({
      scopes: ['kidsapp:engagement:read', 'platform:entitlements:write', 'textapp:progress:write', 'audioapp:playback:write'],
      environment: 'sandbox',
    });
    const platform = async (method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
      t.inject({ method, url: `/platform/v1${url}`, headers: bearer(await t.token(owner)), ...(payload && { payload }) });
    const clock = (await platform('POST', '/test-clocks', { frozen_time: new Date(Date.now() + 86_400_000).toISOString() })).json().id;
    expect((await platform('PUT', `/test-clocks/${clock}/subscribers/clock-family`)).statusCode).toBe(200);
    const lines = [session(1, { account_id: 'clock-family' }), session(2, { account_id: 'reads-elsewhere' })];
    await runCli([fileWith('sandbox.ndjson', lines), '--partner', owner.partner_id, '--sandbox']);
    const accounts = async () =>
      (await db.query('SELECT account_id FROM kids_activity WHERE partner_id = $1 ORDER BY account_id', [owner.partner_id])).map(
        (row: { account_id: string }) => row.account_id,
      );
    expect(await accounts()).toEqual(['clock-family', 'reads-elsewhere']);
    const refused = await platform('PUT', `/test-clocks/${clock}/subscribers/reads-elsewhere`);
    expect([refused.statusCode, refused.json().error]).toEqual([409, 'subscriber_has_data']);

    expect((await platform('DELETE', `/test-clocks/${clock}`)).statusCode).toBe(204);
    expect(await accounts()).toEqual(['reads-elsewhere']);
  });
});
