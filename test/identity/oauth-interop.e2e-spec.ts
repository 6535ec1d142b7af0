import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { TEST_BASE_URL, useTestApp } from '../support/test-app.js';

/**
 * Interoperability with the libraries a partner would use: openid-client obtains a token
 * with client_secret_basic, and jose verifies it against the published key set.
 */
const t = useTestApp();
let origin: string;

beforeAll(async () => {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  origin = await t.app.getUrl();
  origin = origin.replace('[::1]', '127.0.0.1');
});

test('openid-client (client_secret_basic) gets a token that jose verifies against /jwks', async () => {
  const credential = await t.partner({ scopes: ['textapp:catalog:read'] });
  const config = new oidc.Configuration(
    { issuer: `${TEST_BASE_URL}/platform/v1`, token_endpoint: `${origin}/platform/v1/oauth2/token` },
    credential.client_id,
    undefined,
    oidc.ClientSecretBasic(credential.client_secret),
  );
  oidc.allowInsecureRequests(config);
  const tokens = await oidc.clientCredentialsGrant(config);
  expect(tokens.token_type.toLowerCase()).toBe('bearer');
  expect(tokens.expires_in).toBe(600);

  const keySet = createRemoteJWKSet(new URL(`${origin}/platform/v1/jwks`));
  const { payload, protectedHeader } = await jwtVerify(tokens.access_token, keySet, {
    issuer: `${TEST_BASE_URL}/platform/v1`,
    audience: TEST_BASE_URL,
    algorithms: ['ES256'],
    typ: 'at+jwt',
  });
  expect(protectedHeader.alg).toBe('ES256');
  expect(payload.client_id).toBe(credential.client_id);
  expect(payload.partner_id).toBe(credential.partner_id);
});
