import * as oidc from 'openid-client';
import { freePort } from '../../src/shared/net/free-port.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * RFC 8414 discovery (DECISIONS 26): an OAuth library configured from nothing but the
 * issuer URL finds the token endpoint and gets a token. The service's public origin is
 * the address it listens on, so the issuer in the metadata is the URL discovered.
 */
let t: TestApp;
let origin: string;

beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  t = await startTestApp({ PUBLIC_BASE_URL: origin });
  await t.app.listen({ port, host: '127.0.0.1' });
});
afterAll(() => t.close());

test('openid-client discovers the platform issuer and gets a token through it', async () => {
  const credential = await t.partner({ scopes: ['textapp:catalog:read'] });
  const config = await oidc.discovery(new URL(`${origin}/platform/v1`), credential.client_id, credential.client_secret, undefined, {
    algorithm: 'oauth2',
    execute: [oidc.allowInsecureRequests],
  });
  expect(config.serverMetadata().token_endpoint).toBe(`${origin}/platform/v1/oauth2/token`);
  const tokens = await oidc.clientCredentialsGrant(config);
  expect(tokens.token_type.toLowerCase()).toBe('bearer');
  expect(tokens.expires_in).toBe(600);
});

test.each([
  ['platform', 'textapp:catalog:read'],
  ['kids', 'kidsapp:engagement:read'],
])('publishes the %s issuer metadata at its RFC 8414 address', async (issuer, scope) => {
  const response = await t.inject({ method: 'GET', url: `/.well-known/oauth-authorization-server/${issuer}/v1` });
  expect(response.statusCode).toBe(200);
  const metadata = response.json();
  expect(metadata).toEqual({
    issuer: `${origin}/${issuer}/v1`,
    token_endpoint: `${origin}/${issuer}/v1/oauth2/token`,
    jwks_uri: `${origin}/${issuer}/v1/jwks`,
    grant_types_supported: ['client_credentials'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    scopes_supported: expect.arrayContaining([scope]),
    response_types_supported: [],
  });
  if (issuer === 'kids') expect(metadata.scopes_supported).toEqual(['kidsapp:engagement:read']);
});

test('a process that does not serve an issuer answers 404 for its metadata', async () => {
  const platformOnly = await startTestApp({ SERVICES: 'platform' }, t.databaseUrl);
  try {
    expect((await platformOnly.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server/platform/v1' })).statusCode).toBe(200);
    const kids = await platformOnly.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server/kids/v1' });
    expect(kids.statusCode).toBe(404);
    expect(kids.json().error).toBe('not_found');
  } finally {
    await platformOnly.close();
  }
});
