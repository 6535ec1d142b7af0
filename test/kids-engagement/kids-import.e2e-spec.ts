import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { COMMANDS, parseArguments, UsageError } from '../../src/cli/commands.js';
import type { IssuedCredential } from '../../src/modules/identity/index.js';
import { KidsActivityImporter, KidsImportRejected } from '../../src/modules/kids-engagement/index.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** `kids:import FILE --partner ID` (DECISIONS 18): validated line by line, all or nothing. */
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
beforeEach(() => db.query('TRUNCATE kids_activity'));

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
    expect(result).toEqual({ lines: 2501, records: 2500, inserted: 2500, updated: 0 });
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
