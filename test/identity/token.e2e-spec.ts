import { decodeProtectedHeader, decodeJwt } from 'jose';
import { bearer, TEST_BASE_URL, useTestApp } from '../support/test-app.js';
import type { IssuedCredential } from '../../src/modules/identity/index.js';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

const t = useTestApp();
let credential: IssuedCredential;

beforeAll(async () => {
  credential = await t.partner({ scopes: ['textapp:catalog:read', 'platform:billing:read'] });
});

const tokenRequest = (headers: Record<string, string>, payload: string, url = '/platform/v1/oauth2/token') =>
  t.inject({ method: 'POST', url, headers, payload });

describe('POST /platform/v1/oauth2/token', () => {
  it('issues an ES256 at+jwt with the claims of DECISIONS 3 to HTTP Basic clients', async () => {
    const response = await tokenRequest(
      { ...FORM, authorization: basic(credential.client_id, credential.client_secret) },
      form({ grant_type: 'client_credentials' }),
    );
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const body = response.json();
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type']);
    expect(body.scope).toBe('textapp:catalog:read platform:billing:read');
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 600 });
    const header = decodeProtectedHeader(body.access_token);
    expect(header).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    expect(typeof header.kid).toBe('string');
    const claims = decodeJwt(body.access_token);
    expect(claims).toMatchObject({
      iss: `${TEST_BASE_URL}/platform/v1`,
      sub: credential.client_id,
      client_id: credential.client_id,
      partner_id: credential.partner_id,
      env: 'live',
      scope: 'textapp:catalog:read platform:billing:read',
      aud: TEST_BASE_URL,
    });
    expect(claims.exp! - claims.iat!).toBe(600);
    expect(typeof claims.jti).toBe('string');
  });

  it('accepts client_id and client_secret in the form body', async () => {
    const response = await tokenRequest(
      FORM,
      form({ grant_type: 'client_credentials', client_id: credential.client_id, client_secret: credential.client_secret }),
    );
    expect(response.statusCode).toBe(200);
  });

  it('decodes form-urlencoded Basic credentials (RFC 6749 2.3.1)', async () => {
    const encode = (s: string) => s.replace(/[-_]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    const response = await tokenRequest(
      { ...FORM, authorization: basic(encode(credential.client_id), encode(credential.client_secret)) },
      form({ grant_type: 'client_credentials' }),
    );
    expect(response.statusCode).toBe(200);
  });

  it.each([
    ['a wrong secret', () => basic(credential.client_id, 'sk_live_wrong')],
    ['an unknown client', () => basic('live_unknown', credential.client_secret)],
    ['a malformed Basic header', () => 'Basic !!!'],
  ])('answers 401 invalid_client with WWW-Authenticate: Basic for %s', async (_, authorization) => {
    const response = await tokenRequest({ ...FORM, authorization: authorization() }, form({ grant_type: 'client_credentials' }));
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
    expect(response.headers['www-authenticate']).toMatch(/^Basic /);
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('answers 401 invalid_client when no client authentication is sent', async () => {
    const response = await tokenRequest(FORM, form({ grant_type: 'client_credentials' }));
    expect(response.statusCode).toBe(401);
    expect(response.json().error).toBe('invalid_client');
  });

  it('answers 400 invalid_request when grant_type is missing', async () => {
    const response = await tokenRequest({ ...FORM, authorization: basic(credential.client_id, credential.client_secret) }, '');
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('invalid_request');
  });

  it('answers 400 unsupported_grant_type for another grant', async () => {
    const response = await tokenRequest({ ...FORM, authorization: basic(credential.client_id, credential.client_secret) }, form({ grant_type: 'password' }));
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('unsupported_grant_type');
  });

  it('answers 400 invalid_request for a JSON body', async () => {
    const response = await tokenRequest(
      { 'content-type': 'application/json' },
      JSON.stringify({ grant_type: 'client_credentials', client_id: credential.client_id, client_secret: credential.client_secret }),
    );
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('invalid_request');
  });

  it('answers 400 invalid_request for a client_secret in the query string', async () => {
    const response = await tokenRequest(
      FORM,
      form({ grant_type: 'client_credentials', client_id: credential.client_id }),
      `/platform/v1/oauth2/token?client_secret=${encodeURIComponent(credential.client_secret)}`,
    );
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('invalid_request');
  });

  it.each(['', ' '])('takes a scope sent empty (%j) as omitted: the token carries every scope held (RFC 6749 3.1)', async (scope) => {
    const response = await tokenRequest(
      { ...FORM, authorization: basic(credential.client_id, credential.client_secret) },
      form({ grant_type: 'client_credentials', scope }),
    );
    expect(response.statusCode).toBe(200);
    expect(response.json().scope.split(' ').sort()).toEqual([...credential.scopes].sort());
  });

  it('narrows the token to a requested subset of the credential scopes (RFC 6749 3.3)', async () => {
    const response = await tokenRequest(
      { ...FORM, authorization: basic(credential.client_id, credential.client_secret) },
      form({ grant_type: 'client_credentials', scope: 'textapp:catalog:read  textapp:catalog:read' }),
    );
    expect(response.statusCode).toBe(200);
    expect(response.json().scope).toBe('textapp:catalog:read');
    const billing = await t.inject({
      method: 'GET',
      url: '/platform/v1/billing-usage?product=textapp&period=2026-10',
      headers: bearer(response.json().access_token),
    });
    expect([billing.statusCode, billing.json().error]).toEqual([403, 'insufficient_scope']);
  });

  it.each(['platform:subscribers:erase', 'nonsense:scope', 'textapp:catalog:read platform:subscribers:erase'])(
    'answers 400 invalid_scope to a requested scope the credential does not hold (%j)',
    async (scope) => {
      const response = await tokenRequest(
        { ...FORM, authorization: basic(credential.client_id, credential.client_secret) },
        form({ grant_type: 'client_credentials', scope }),
      );
      expect([response.statusCode, response.json().error]).toEqual([400, 'invalid_scope']);
    },
  );

  it('answers 400 invalid_request when both Basic and body credentials are sent', async () => {
    const response = await tokenRequest(
      { ...FORM, authorization: basic(credential.client_id, credential.client_secret) },
      form({ grant_type: 'client_credentials', client_id: credential.client_id, client_secret: credential.client_secret }),
    );
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('invalid_request');
  });

  it('refuses a revoked credential with 401 invalid_client', async () => {
    const revoked = await t.partner();
    await t.app.get((await import('../../src/modules/identity/index.js')).PartnerCredentialsService).revoke(revoked.client_id);
    const response = await tokenRequest(
      { ...FORM, authorization: basic(revoked.client_id, revoked.client_secret) },
      form({ grant_type: 'client_credentials' }),
    );
    expect(response.statusCode).toBe(401);
    expect(response.json().error).toBe('invalid_client');
  });
});

describe('GET /platform/v1/jwks', () => {
  it('publishes the ES256 public key that verifies the token, cacheable for 300 s, without private parts', async () => {
    const token = await t.token(credential);
    const response = await t.inject({ method: 'GET', url: '/platform/v1/jwks' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('public, max-age=300');
    const { keys } = response.json();
    const kid = decodeProtectedHeader(token).kid;
    const key = keys.find((k: { kid: string }) => k.kid === kid);
    expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(key.d).toBeUndefined();
  });
});
