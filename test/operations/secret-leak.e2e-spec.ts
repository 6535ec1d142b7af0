import { createPrivateKey } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { decodeJwt, SignJWT } from 'jose';
import pg from 'pg';
import { loadConfig } from '../../src/config/app-config.js';
import { signedMediaPath } from '../../src/modules/media/domain/signed-media-url.js';
import type { IssuedCredential } from '../../src/modules/identity/index.js';
import { ServerSecrets } from '../../src/shared/crypto/server-secrets.js';
import { buildOnce, runNode, startService, type ServiceProcess } from '../support/processes.js';
import { bearer, serviceEnvFor, startTestApp, TEST_BASE_URL, type TestApp } from '../support/test-app.js';
import { withDatabase } from '../support/test-database.js';

/**
 * Issue 38, item 1 (ADR 0003): someone holds a copy of the database taken before the
 * rotation and the old SERVER_SECRET. After `secret:rotate --after-leak` nothing they sign
 * from it verifies: a token of an old kid, a media URL with a far expiry, a webhook
 * signature with an old endpoint secret.
 */
const OLD = 'old-server-secret-leaked-Zx8Qm2vL0aR7tK4pW9cE1yH6';
const NEW = 'new-server-secret-f3a9c21e8b4d60f5a2e19c7b3d8e0a4f';
const MEDIA_KEY = 'leak-test/chapter.mp3';
const FAR_EXPIRY = 999_999_999_999;

const secretsFor = (secret: string, previous?: string) =>
  new ServerSecrets(
    loadConfig({
      NODE_ENV: 'test',
      PUBLIC_BASE_URL: TEST_BASE_URL,
      SERVER_SECRET: secret,
      ...(previous ? { SERVER_SECRET_PREVIOUS: previous } : {}),
      DATA_DIR: mkdtempSync(join(tmpdir(), 'prl-leak-')),
    }),
  );

async function query<T extends pg.QueryResultRow>(url: string, sql: string, parameters: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, parameters)).rows;
  } finally {
    await client.end();
  }
}

describe('secret:rotate --after-leak against a stolen database copy and the old secret', () => {
  let setup: TestApp;
  let env: Record<string, string>;
  let service: (ServiceProcess & { origin: string }) | undefined;
  let credential: IssuedCredential;
  let genuineToken: string;
  let endpointId: string;
  /** What the holder of the copy and the old secret makes. */
  const forged = { token: '', webhookSecret: '', mediaPath: '' };

  beforeAll(async () => {
    buildOnce();
    setup = await startTestApp({ SERVER_SECRET: OLD });
    credential = await setup.partner({ scopes: ['platform:webhooks:manage'], environment: 'sandbox' });
    genuineToken = await setup.token(credential);
    const endpoint = await setup.inject({
      method: 'POST',
      url: '/platform/v1/webhook-endpoints',
      headers: bearer(genuineToken),
      payload: { url: 'http://127.0.0.1:9/hook', events: ['novel.finished'] },
    });
    expect(endpoint.statusCode).toBe(201);
    endpointId = endpoint.json().id;
    await setup.close();

    // The copy, taken before the rotation.
    const copy = withDatabase(process.env.TEST_PG_ADMIN_URL!, `${new URL(setup.databaseUrl).pathname.slice(1)}_stolen`);
    await query(
      process.env.TEST_PG_ADMIN_URL!,
      `CREATE DATABASE ${pg.escapeIdentifier(new URL(copy).pathname.slice(1))} TEMPLATE ${pg.escapeIdentifier(new URL(setup.databaseUrl).pathname.slice(1))}`,
    );
    const old = secretsFor(OLD);
    const [key] = await query<{ kid: string; sealed_private_key: string }>(copy, `SELECT kid, sealed_private_key FROM signing_keys WHERE issuer = 'platform'`);
    const privateKey = createPrivateKey(old.unseal(key.sealed_private_key));
    const now = Math.floor(Date.now() / 1000);
    forged.token = await new SignJWT({ ...decodeJwt(genuineToken), iat: now, exp: now + 10 * 365 * 86400, jti: 'forged' })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: key.kid })
      .sign(privateKey);
    const [secret] = await query<{ sealed_secret: string }>(copy, `SELECT sealed_secret FROM webhook_endpoint_secrets`);
    forged.webhookSecret = old.unseal(secret.sealed_secret);
    forged.mediaPath = signedMediaPath(MEDIA_KEY, FAR_EXPIRY, old.mediaUrlKey);

    // Every replica runs with the new secret and the old one as SERVER_SECRET_PREVIOUS.
    env = serviceEnvFor(setup, { SERVER_SECRET: NEW, SERVER_SECRET_PREVIOUS: OLD });
    const mediaFile = join(env.DATA_DIR, 'media', MEDIA_KEY);
    mkdirSync(dirname(mediaFile), { recursive: true });
    writeFileSync(mediaFile, Buffer.alloc(64, 1));
  }, 180_000);

  afterEach(async () => {
    service?.child.kill('SIGTERM');
    await service?.exit();
    service = undefined;
  });

  const statuses = async () => {
    service = await startService(env);
    const webhooks = await fetch(`${service.origin}/platform/v1/webhook-endpoints`, { headers: bearer(forged.token) });
    const media = await fetch(`${service.origin}${forged.mediaPath}`);
    const result = { token: webhooks.status, media: media.status };
    service.child.kill('SIGTERM');
    await service.exit();
    service = undefined;
    return result;
  };

  it('ends the leaked secret’s power over tokens, media URLs and webhook signatures', async () => {
    // Before: the copy and the old secret sign what the service accepts.
    expect(await statuses()).toEqual({ token: 200, media: 200 });

    const cli = runNode('dist/src/cli.js', ['secret:rotate', '--after-leak'], env);
    expect(await cli.exit()).toBe(0);
    const rotation = JSON.parse(cli.output().slice(cli.output().indexOf('{')));
    expect(rotation.after_leak.signing_keys.map((k: { issuer: string }) => k.issuer)).toEqual(['platform', 'kids']);
    expect(rotation.after_leak.webhook_endpoints).toHaveLength(1);

    // The old kid stays published for the lifetime of the tokens it signed before the
    // rotation; a replica that starts once it has passed is what this shifts the keys to.
    const retiresAt = Date.parse(rotation.after_leak.signing_keys[0].retires_older_at);
    const elapsed = Math.ceil((retiresAt - Date.now()) / 1000) + 1;
    await query(setup.databaseUrl, `UPDATE signing_keys SET signs_from = signs_from - make_interval(secs => $1)`, [elapsed]);

    // After: the old kid's token 401, the far media URL 403, even with SERVER_SECRET_PREVIOUS still set.
    expect(await statuses()).toEqual({ token: 401, media: 403 });

    // Webhooks: once the partners' 24 h overlap has passed, no secret that still signs is the old one.
    const current = secretsFor(NEW, OLD);
    const secrets = await query<{ sealed_secret: string; expires_at: Date | null }>(
      setup.databaseUrl,
      `SELECT sealed_secret, expires_at FROM webhook_endpoint_secrets`,
    );
    const overlapEnd = Date.now() + 24 * 3600 * 1000;
    const signingAfterOverlap = secrets.filter((s) => s.expires_at === null || s.expires_at.getTime() > overlapEnd).map((s) => current.unseal(s.sealed_secret));
    const leaked = secrets.filter((s) => current.unseal(s.sealed_secret) === forged.webhookSecret);
    expect({ signingAfterOverlap: signingAfterOverlap.length, stillOld: signingAfterOverlap.includes(forged.webhookSecret) }).toEqual({
      signingAfterOverlap: 1,
      stillOld: false,
    });
    expect(leaked).toHaveLength(1);
    expect(leaked[0].expires_at!.getTime()).toBeLessThanOrEqual(overlapEnd);
  }, 180_000);

  it('still serves a media URL signed with the old secret within its normal lifetime', async () => {
    const old = secretsFor(OLD);
    service = await startService(env);
    const path = signedMediaPath(MEDIA_KEY, Math.floor(Date.now() / 1000) + 600, old.mediaUrlKey);
    expect((await fetch(`${service.origin}${path}`)).status).toBe(200);
  }, 60_000);

  it('lets the partner then rotate to a secret it knows, the leaked one keeping its end', async () => {
    service = await startService(env);
    const token = await fetch(`${service.origin}/platform/v1/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: credential.client_id, client_secret: credential.client_secret }),
    });
    const { access_token } = (await token.json()) as { access_token: string };
    const rotated = await fetch(`${service.origin}/platform/v1/webhook-endpoints/${endpointId}/rotate-secret`, {
      method: 'POST',
      headers: bearer(access_token),
    });
    expect(rotated.status).toBe(200);
    const secret = ((await rotated.json()) as { secret: string }).secret;
    const current = secretsFor(NEW, OLD);
    const rows = await query<{ sealed_secret: string; expires_at: Date | null }>(
      setup.databaseUrl,
      `SELECT sealed_secret, expires_at FROM webhook_endpoint_secrets ORDER BY created_at`,
    );
    const byPlaintext = new Map(rows.map((row) => [current.unseal(row.sealed_secret), row.expires_at]));
    expect(byPlaintext.get(secret)).toBeNull();
    expect(byPlaintext.get(forged.webhookSecret)).toBeInstanceOf(Date);
  }, 60_000);
});
