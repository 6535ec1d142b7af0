import { decodeJwt, decodeProtectedHeader } from 'jose';
import { PartnerCredentialsService, SigningKeyService, type IssuedCredential } from '../../src/modules/identity/index.js';
import type { Environment } from '../../src/shared/tenancy/tenant.js';
import { documentedOperations, expectDocumented } from '../support/openapi.js';
import { bearer, TEST_BASE_URL, useTestApp, startTestApp } from '../support/test-app.js';
import { algNoneToken, foreignEs256Token, hs256WithPublicKeyToken, kidsServiceToken, publishTestKey, type TestKeySigner } from '../support/tokens.js';

/**
 * One protected route of each service. Every attack runs against all of them: each
 * service verifies tokens through the same guard, and this keeps it so. Each route must
 * be in the app: a renamed one fails its row instead of answering 404 to every attack.
 */
interface Service {
  name: string;
  url: string;
  /** The environment of the credential whose genuine token the route accepts. */
  environment: Environment;
}

const SERVICES: Service[] = [
  { name: 'platform', url: '/platform/v1/billing-usage?product=textapp', environment: 'live' },
  { name: 'text and audio (/v1)', url: '/v1/categories', environment: 'live' },
  { name: 'sandbox (/sandbox/v1)', url: '/sandbox/v1/categories', environment: 'sandbox' },
  {
    name: "children's summary",
    url: '/kids/v1/engagement/summary?period_start=2026-01-01&period_end=2026-01-31',
    environment: 'live',
  },
];
const PLATFORM = SERVICES[0];

const t = useTestApp();
/** Genuine tokens of one partner with every scope, per environment. */
let genuine: Record<Environment, string>;

beforeAll(async () => {
  const { live, sandbox } = await credentialsOfOnePartner();
  genuine = { live: await t.token(live), sandbox: await t.token(sandbox) };
});

async function credentialsOfOnePartner(): Promise<Record<Environment, IssuedCredential>> {
  const live = await t.partner();
  return { live, sandbox: await t.app.get(PartnerCredentialsService).createCredential(live.partner_id, undefined, 'sandbox') };
}

const call = (url: string, authorization?: string) => t.inject({ method: 'GET', url, headers: authorization === undefined ? {} : { authorization } });

/** 401 invalid_token with the contract body; `challenge` is what WWW-Authenticate must say. */
function expectInvalidToken(service: Service, response: Awaited<ReturnType<typeof call>>, challenge = /^Bearer error="invalid_token"/) {
  expect({ service: service.name, status: response.statusCode, body: response.json(), challenge: response.headers['www-authenticate'] }).toEqual({
    service: service.name,
    status: 401,
    body: { error: 'invalid_token', error_description: expect.any(String) },
    challenge: expect.stringMatching(challenge),
  });
}

function expectAccepted(service: Service, response: Awaited<ReturnType<typeof call>>) {
  expect({ service: service.name, status: response.statusCode }).toEqual({ service: service.name, status: 200 });
}

/** Builds the attack from the genuine token each service would accept, and expects 401 on every service. */
async function expectRefusedEverywhere(forge: (genuineToken: string, service: Service) => string | Promise<string>) {
  for (const service of SERVICES) {
    expectInvalidToken(service, await call(service.url, `Bearer ${await forge(genuine[service.environment], service)}`));
  }
}

describe('the access guard on every service', () => {
  it.each(SERVICES.map((service) => [service.name, service]))('%s: the route is in the app', async (_, service) => {
    expectDocumented(await documentedOperations(t), service.name, 'GET', service.url);
  });

  it('lets the genuine tokens through (the control case)', async () => {
    for (const service of SERVICES) expectAccepted(service, await call(service.url, `Bearer ${genuine[service.environment]}`));
  });

  it('answers 401 invalid_token without a token, or with a malformed one', async () => {
    for (const service of SERVICES) {
      expectInvalidToken(service, await call(service.url), /^Bearer /);
      expectInvalidToken(service, await call(service.url, 'Basic abc'), /^Bearer /);
      expectInvalidToken(service, await call(service.url, 'Bearer not-a-jwt'));
    }
  });

  it('refuses a genuine token whose claims were changed, even right after the genuine one was accepted', async () => {
    // Verified tokens are remembered under their signature: the rest must still be compared.
    for (const service of SERVICES) expectAccepted(service, await call(service.url, `Bearer ${genuine[service.environment]}`));
    await expectRefusedEverywhere((token) => {
      const [header, payload, signature] = token.split('.');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      const widened = Buffer.from(JSON.stringify({ ...claims, partner_id: '00000000-0000-4000-8000-000000000000' })).toString('base64url');
      return `${header}.${widened}.${signature}`;
    });
  });

  it('refuses a token with alg none', async () => {
    await expectRefusedEverywhere(algNoneToken);
  });

  it('refuses an HS256 token whose secret is the public key', async () => {
    const { keys } = (await call('/platform/v1/jwks')).json();
    await expectRefusedEverywhere((token) =>
      hs256WithPublicKeyToken(
        token,
        keys.find((key: { kid: string }) => key.kid === decodeProtectedHeader(token).kid),
      ),
    );
  });

  it('refuses a token signed by a foreign ES256 key, with or without a known kid', async () => {
    await expectRefusedEverywhere((token) => foreignEs256Token(token));
    await expectRefusedEverywhere((token) => foreignEs256Token(token, 'foreign'));
  });

  describe('with a test key the service publishes', () => {
    let sign: TestKeySigner;
    beforeAll(async () => {
      sign = await publishTestKey(t);
    });
    const now = () => Math.floor(Date.now() / 1000);

    it('accepts its tokens within their lifetime (the control case)', async () => {
      for (const service of SERVICES) {
        expectAccepted(service, await call(service.url, `Bearer ${await sign(genuine[service.environment], { iat: now() - 60, exp: now() + 540 })}`));
      }
    });

    it('refuses a token past exp beyond the 30 s skew', async () => {
      await expectRefusedEverywhere((token) => sign(token, { iat: now() - 631, exp: now() - 31 }));
    });

    it('refuses a token with another audience or issuer', async () => {
      await expectRefusedEverywhere((token) => sign(token, { aud: 'https://elsewhere.example' }));
      await expectRefusedEverywhere((token) => sign(token, { iss: 'https://elsewhere.example/platform/v1' }));
    });

    it('refuses a token whose claims lack the partner', async () => {
      await expectRefusedEverywhere((token) => sign(token, { partner_id: undefined }));
    });
  });

  it('refuses the tokens of a credential once it is revoked', async () => {
    const credentials = await credentialsOfOnePartner();
    const tokens = { live: await t.token(credentials.live), sandbox: await t.token(credentials.sandbox) };
    for (const service of SERVICES) expectAccepted(service, await call(service.url, `Bearer ${tokens[service.environment]}`));
    for (const credential of Object.values(credentials)) await t.app.get(PartnerCredentialsService).revoke(credential.client_id);
    await expectRefusedEverywhere((_, service) => tokens[service.environment]);
  });

  it("refuses a children's service token everywhere but the children's service", async () => {
    const credentials = await credentialsOfOnePartner();
    const kidsTokens = { live: await kidsServiceToken(t, credentials.live), sandbox: await kidsServiceToken(t, credentials.sandbox) };
    expect(decodeJwt(kidsTokens.live).iss).toBe(`${TEST_BASE_URL}/kids/v1`);
    for (const service of SERVICES) {
      const response = await call(service.url, `Bearer ${kidsTokens[service.environment]}`);
      if (service.url.startsWith('/kids/')) expectAccepted(service, response);
      else expectInvalidToken(service, response);
    }
  });

  it('answers 403 insufficient_scope to a valid token without the scope', async () => {
    const narrow = await t.token(await t.partner({ scopes: ['textapp:catalog:read'] }));
    const response = await call(PLATFORM.url, `Bearer ${narrow}`);
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
    expect((await call(PLATFORM.url, `Bearer ${before}`)).statusCode).toBe(200);
    expect((await call(PLATFORM.url, `Bearer ${after}`)).statusCode).toBe(200);
    const kids = (await call('/platform/v1/jwks')).json().keys.map((k: { kid: string }) => k.kid);
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
      expect((await delayed.inject({ method: 'GET', url: PLATFORM.url, headers: bearer(token) })).statusCode).toBe(200);
    } finally {
      await delayed.close();
    }
  });
});
