import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, SignJWT, exportJWK } from 'jose';
import { DataSource } from 'typeorm';
import { PartnerCredentialsService, SigningKeyService } from '../../src/modules/identity/index.js';
import { ServerSecrets } from '../../src/shared/crypto/server-secrets.js';
import { bearer, startTestApp, TEST_BASE_URL, type TestApp } from '../support/test-app.js';

const PROTECTED = '/platform/v1/billing-usage?product=textapp';

let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await startTestApp();
  token = await t.token(await t.partner({ scopes: ['platform:billing:read', 'kidsapp:engagement:read'] }));
});
afterAll(() => t.close());

const call = (authorization?: string, url = PROTECTED) =>
  t.inject({ method: 'GET', url, headers: authorization === undefined ? {} : { authorization } });

function expectInvalidToken(response: Awaited<ReturnType<typeof call>>) {
  expect(response.statusCode).toBe(401);
  expect(response.json()).toEqual({ error: 'invalid_token', error_description: expect.any(String) });
  expect(response.headers['www-authenticate']).toMatch(/^Bearer /);
}

const b64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('the access guard', () => {
  it('lets a valid token with the scope through', async () => {
    expect((await call(`Bearer ${token}`)).statusCode).toBe(200);
  });

  it('answers 401 invalid_token without a token, or with a malformed one', async () => {
    expectInvalidToken(await call());
    expectInvalidToken(await call('Basic abc'));
    expectInvalidToken(await call('Bearer not-a-jwt'));
  });

  it('refuses a token with alg none', async () => {
    const claims = decodeJwt(token);
    const kid = decodeProtectedHeader(token).kid;
    expectInvalidToken(await call(`Bearer ${b64url({ alg: 'none', typ: 'at+jwt', kid })}.${b64url(claims)}.`));
  });

  it('refuses an HS256 token whose secret is the public key', async () => {
    const { keys } = (await call(undefined, '/platform/v1/jwks')).json();
    const { createPublicKey } = await import('node:crypto');
    const publicPem = createPublicKey({ key: keys[0], format: 'jwk' }).export({ type: 'spki', format: 'pem' });
    const forged = await new SignJWT(decodeJwt(token))
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: keys[0].kid })
      .sign(new TextEncoder().encode(String(publicPem)));
    expectInvalidToken(await call(`Bearer ${forged}`));
  });

  it('refuses a token signed by a foreign ES256 key, with or without a known kid', async () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const kid = decodeProtectedHeader(token).kid!;
    for (const header of [{ alg: 'ES256', typ: 'at+jwt', kid }, { alg: 'ES256', typ: 'at+jwt', kid: 'foreign' }]) {
      const forged = await new SignJWT(decodeJwt(token)).setProtectedHeader(header).sign(privateKey);
      expectInvalidToken(await call(`Bearer ${forged}`));
    }
  });

  describe('with a test key the service publishes', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const kid = `test-${randomUUID()}`;
    const sign = (claims: Record<string, unknown>) =>
      new SignJWT({ ...decodeJwt(token), jti: randomUUID(), ...claims }).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid }).sign(privateKey);

    beforeAll(async () => {
      const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
      await t.app.get(DataSource).query(
        `INSERT INTO signing_keys (kid, issuer, public_jwk, sealed_private_key, signs_from) VALUES ($1, 'platform', $2, $3, '2000-01-01')`,
        [kid, JSON.stringify(jwk), t.app.get(ServerSecrets).seal('unused')],
      );
      // An unknown kid makes the verifier re-read the key set, at most once a second.
      await new Promise((resolve) => setTimeout(resolve, 1100));
    });

    it('accepts its tokens within their lifetime (the control case)', async () => {
      const now = Math.floor(Date.now() / 1000);
      expect((await call(`Bearer ${await sign({ iat: now - 60, exp: now + 540 })}`)).statusCode).toBe(200);
    });

    it('refuses a token past exp beyond the 30 s skew', async () => {
      const iat = Math.floor(Date.now() / 1000) - 600 - 31;
      expectInvalidToken(await call(`Bearer ${await sign({ iat, exp: iat + 600 })}`));
    });

    it('refuses a token with another audience or issuer', async () => {
      expectInvalidToken(await call(`Bearer ${await sign({ aud: 'https://elsewhere.example' })}`));
      expectInvalidToken(await call(`Bearer ${await sign({ iss: 'https://elsewhere.example/platform/v1' })}`));
    });

    it('refuses a token whose claims lack the partner', async () => {
      expectInvalidToken(await call(`Bearer ${await sign({ partner_id: undefined })}`));
    });
  });

  it('refuses the tokens of a credential once it is revoked', async () => {
    const credential = await t.partner({ scopes: ['platform:billing:read'] });
    const revocable = await t.token(credential);
    expect((await call(`Bearer ${revocable}`)).statusCode).toBe(200);
    await t.app.get(PartnerCredentialsService).revoke(credential.client_id);
    expectInvalidToken(await call(`Bearer ${revocable}`));
  });

  it("refuses a children's service token on the platform", async () => {
    const credential = await t.partner({ scopes: ['kidsapp:engagement:read', 'platform:billing:read'] });
    const response = await t.inject({
      method: 'POST',
      url: '/kids/v1/oauth2/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ grant_type: 'client_credentials', client_id: credential.client_id, client_secret: credential.client_secret, scope: 'kidsapp:engagement:read' }).toString(),
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ token_type: 'Bearer', expires_in: 600, scope: 'kidsapp:engagement:read' });
    const kidsToken = response.json().access_token;
    expect(decodeJwt(kidsToken).iss).toBe(`${TEST_BASE_URL}/kids/v1`);
    expectInvalidToken(await call(`Bearer ${kidsToken}`));
  });

  it('answers 403 insufficient_scope to a valid token without the scope', async () => {
    const narrow = await t.token(await t.partner({ scopes: ['textapp:catalog:read'] }));
    const response = await call(`Bearer ${narrow}`);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ error: 'insufficient_scope', error_description: expect.stringContaining('platform:billing:read') });
  });
});

describe('key rotation', () => {
  it('keeps tokens signed before a rotation valid, and signs new tokens with the new key', async () => {
    const credential = await t.partner({ scopes: ['platform:billing:read'] });
    const before = await t.token(credential);
    const rotated = await t.app.get(SigningKeyService).rotate('platform'); // activation delay is 0 in tests
    const after = await t.token(credential);
    expect(decodeProtectedHeader(after).kid).toBe(rotated.kid);
    expect(decodeProtectedHeader(before).kid).not.toBe(rotated.kid);
    expect((await call(`Bearer ${before}`)).statusCode).toBe(200);
    expect((await call(`Bearer ${after}`)).statusCode).toBe(200);
    const kids = (await call(undefined, '/platform/v1/jwks')).json().keys.map((k: { kid: string }) => k.kid);
    expect(kids).toEqual(expect.arrayContaining([decodeProtectedHeader(before).kid, rotated.kid]));
  });

  it('publishes a new key at once but signs with it only after the activation delay', async () => {
    const delayed = await startTestApp({ KEY_ACTIVATION_DELAY_SECONDS: '600' });
    try {
      const credential = await delayed.partner({ scopes: ['platform:billing:read'] });
      const rotated = await delayed.app.get(SigningKeyService).rotate('platform');
      const published = (await delayed.inject({ method: 'GET', url: '/platform/v1/jwks' })).json().keys.map((k: { kid: string }) => k.kid);
      expect(published).toContain(rotated.kid);
      const token = await delayed.token(credential);
      expect(decodeProtectedHeader(token).kid).not.toBe(rotated.kid);
      expect((await delayed.inject({ method: 'GET', url: PROTECTED, headers: bearer(token) })).statusCode).toBe(200);
    } finally {
      await delayed.close();
    }
  });
});
