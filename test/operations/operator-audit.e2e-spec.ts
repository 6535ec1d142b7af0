import { userInfo } from 'node:os';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { buildOnce, runNode } from '../support/processes.js';
import { startTestApp } from '../support/test-app.js';
import { createTestDatabase } from '../support/test-database.js';

/**
 * Issue 38, item 9 (ADR 0155): partner:list, credential:list with last use, and the
 * append-only record of operator actions that audit:list reads.
 */
const SECRET = 'audit-test-secret-audit-test-secret-00';
let databaseUrl: string;
beforeAll(async () => {
  buildOnce();
  databaseUrl = await createTestDatabase();
});

async function cli(args: string[], env: Record<string, string> = {}) {
  const run = runNode('dist/src/cli.js', args, { DATABASE_URL: databaseUrl, SERVER_SECRET: SECRET, LOG_LEVEL: 'silent', ...env });
  let stdout = '';
  run.child.stdout!.on('data', (chunk) => (stdout += chunk));
  const code = await run.exit();
  if (code !== 0) throw new Error(`${args[0]} exited ${code}: ${run.output()}`);
  return JSON.parse(stdout);
}

test('lists partners and credentials with last use, and records who changed what', async () => {
  const partner = await cli(['partner:create', '--name', 'Acme Telecom'], { OPERATOR: 'alice@example.com' });
  const second = await cli(['credential:create', '--partner', partner.partner_id, '--sandbox']);
  await cli(['credential:revoke', '--client-id', second.client_id], { OPERATOR: 'bob' });

  // A token request records the last use, at most once a minute.
  const app = await startTestApp({ SERVER_SECRET: SECRET }, databaseUrl);
  await app.token(partner);
  await app.close();

  expect(await cli(['partner:list'])).toEqual({
    partners: [{ partner_id: partner.partner_id, name: 'Acme Telecom', created_at: expect.any(String), active_credentials: 1, revoked_credentials: 1 }],
  });
  const credentials = (await cli(['credential:list', '--partner', partner.partner_id])).credentials;
  expect(credentials).toEqual([
    expect.objectContaining({ client_id: partner.client_id, environment: 'live', revoked_at: null, last_used_at: expect.any(String) }),
    expect.objectContaining({ client_id: second.client_id, environment: 'sandbox', revoked_at: expect.any(String), last_used_at: null }),
  ]);

  const { actions } = await cli(['audit:list']);
  const osUser = userInfo().username;
  expect(actions.map(({ command, os_user, operator, subject }: Record<string, unknown>) => ({ command, os_user, operator, subject }))).toEqual([
    { command: 'credential:revoke', os_user: osUser, operator: 'bob', subject: second.client_id },
    { command: 'credential:create', os_user: osUser, operator: null, subject: second.client_id },
    { command: 'partner:create', os_user: osUser, operator: 'alice@example.com', subject: partner.partner_id },
  ]);
  // Listing is not an action; no secret is ever recorded.
  expect(JSON.stringify(actions)).not.toMatch(/sk_(live|sbx)_/);
  expect((await cli(['audit:list', '--limit', '1'])).actions).toHaveLength(1);
  expect((await cli(['audit:list', '--since', '2999-01-01'])).actions).toEqual([]);
}, 120_000);

test('the database refuses to change or remove a recorded action', async () => {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`INSERT INTO operator_actions (command, os_user) VALUES ('test:action', 'tester')`);
    for (const statement of [`UPDATE operator_actions SET os_user = 'someone else'`, `DELETE FROM operator_actions`, `TRUNCATE operator_actions`]) {
      await expect(client.query(statement)).rejects.toThrow(/operator_actions is append-only/);
    }
    const { rows } = await client.query(`SELECT os_user FROM operator_actions WHERE command = 'test:action'`);
    expect(rows).toEqual([{ os_user: 'tester' }]);
  } finally {
    await client.end();
  }
});

test('a credential’s last use is written at most once a minute', async () => {
  const app = await startTestApp({ SERVER_SECRET: SECRET }, databaseUrl);
  try {
    const credential = await app.partner();
    const lastUse = async () =>
      (await app.app.get(DataSource).query(`SELECT last_used_at FROM credentials WHERE client_id = $1`, [credential.client_id]))[0].last_used_at as Date | null;
    expect(await lastUse()).toBeNull();
    await app.token(credential);
    const first = await lastUse();
    await app.token(credential);
    expect(first).toBeInstanceOf(Date);
    expect(await lastUse()).toEqual(first);
  } finally {
    await app.close();
  }
});
