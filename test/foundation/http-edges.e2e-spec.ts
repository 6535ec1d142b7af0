import { bearer, type TestApp, useTestApp, startTestApp } from '../support/test-app.js';

/** Edges the fuzzer found (issue 25, items 9 and 10), each through the real HTTP stack. */
const t = useTestApp();
let token: string;
beforeAll(async () => {
  token = await t.token(await t.partner());
});

describe('a method the path does not answer', () => {
  it.each([
    ['text/plain', 'hello'],
    ['application/x-www-form-urlencoded', 'a=1'],
    ['application/json', '{"a":1}'],
    ['application/xml', '<a/>'],
  ])('gets 405 with Allow whatever the body (%s)', async (contentType, payload) => {
    const response = await t.inject({ method: 'POST', url: '/v1/categories', headers: { 'content-type': contentType }, payload });
    expect({ status: response.statusCode, allow: response.headers.allow, error: response.json().error }).toEqual({
      status: 405,
      allow: 'GET, HEAD',
      error: 'method_not_allowed',
    });
  });

  it('while an unknown path is 404 whatever the body', async () => {
    const response = await t.inject({ method: 'POST', url: '/v1/nowhere', headers: { 'content-type': 'text/plain' }, payload: 'x' });
    expect({ status: response.statusCode, error: response.json().error }).toEqual({ status: 404, error: 'not_found' });
  });
});

describe('a surface the process does not mount', () => {
  let platformOnly: TestApp;
  beforeAll(async () => {
    platformOnly = await startTestApp({ SERVICES: 'platform' }, t.databaseUrl);
  });
  afterAll(() => platformOnly?.close());

  it.each([
    ['GET', '/v1/categories'],
    ['POST', '/v1/categories'],
    ['DELETE', '/sandbox/v1/novels'],
    ['PUT', '/kids/v1/jwks'],
  ] as const)('answers 404 without Allow to %s %s', async (method, url) => {
    const response = await platformOnly.inject({ method, url });
    expect({ status: response.statusCode, allow: response.headers.allow, error: response.json().error }).toEqual({
      status: 404,
      allow: undefined,
      error: 'not_found',
    });
  });

  it('and still answers 405 with Allow on its own surface', async () => {
    const response = await platformOnly.inject({ method: 'DELETE', url: '/platform/v1/jwks' });
    expect({ status: response.statusCode, allow: response.headers.allow }).toEqual({ status: 405, allow: 'GET, HEAD' });
  });
});

describe('answers to an authenticated caller', () => {
  it.each(['/v1/categories', '/v1/novels', '/platform/v1/subscriber/sub-1/status', '/v1/novels/no-such-novel/chapters'])(
    'carry Cache-Control: no-store (%s)',
    async (url) => {
      const response = await t.inject({ method: 'GET', url, headers: bearer(token) });
      expect(response.headers['cache-control']).toBe('no-store');
    },
  );
});

describe('the token endpoints and discovery', () => {
  it('answer the granted scope with a platform token (RFC 6749 5.1)', async () => {
    const credential = await t.partner({ scopes: ['textapp:catalog:read', 'textapp:progress:read'] });
    const response = await t.inject({
      method: 'POST',
      url: '/platform/v1/oauth2/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ grant_type: 'client_credentials', client_id: credential.client_id, client_secret: credential.client_secret }).toString(),
    });
    expect(response.json()).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 600,
      scope: 'textapp:catalog:read textapp:progress:read',
    });
  });

  it('list no response type: the only grant has no authorization endpoint', async () => {
    const response = await t.inject({ method: 'GET', url: '/.well-known/oauth-authorization-server/platform/v1' });
    expect(response.json().response_types_supported).toEqual([]);
  });
});

describe('null for a field not documented as nullable (DECISIONS 5)', () => {
  it.each([
    [
      '/platform/v1/entitlements',
      'POST',
      { subscriber_id: 'null-1', product: 'textapp', status: 'active', effective_at: null },
      'effective_at must not be null',
    ],
    ['/platform/v1/entitlements', 'POST', { subscriber_id: 'null-1', product: 'textapp', status: 'active', plan: null }, 'plan must not be null'],
    ['/platform/v1/entitlements', 'POST', { subscriber_id: null, product: 'textapp', status: 'active' }, 'subscriber_id'],
    ['/sandbox/v1/subscribers/null-2/novels', 'POST', { novel_id: 'the-heir', started_at: null }, 'started_at must not be null'],
    ['/sandbox/v1/subscribers/null-2/novels', 'POST', { novel_id: null }, 'novel_id'],
  ])('is refused with 400 on %s %s %j', async (url, method, payload, named) => {
    const sandbox = await t.token(await t.partner({ environment: 'sandbox' }));
    const response = await t.inject({ method: method as 'POST', url, headers: bearer(url.startsWith('/sandbox') ? sandbox : token), payload });
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 400,
      body: { error: 'invalid_request', error_description: expect.stringContaining(named) },
    });
  });
});
