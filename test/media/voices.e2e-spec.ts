import { bearer, useTestApp } from '../support/test-app.js';

const t = useTestApp();
let live: string;
let sandbox: string;
let withoutScope: string;

beforeAll(async () => {
  live = await t.token(await t.partner({ scopes: ['audioapp:voices:read'] }));
  sandbox = await t.token(await t.partner({ scopes: ['audioapp:voices:read'], environment: 'sandbox' }));
  withoutScope = await t.token(await t.partner({ scopes: ['audioapp:audio:read'] }));
});

describe('GET /voices', () => {
  it.each([
    ['/v1/voices', () => live],
    ['/sandbox/v1/voices', () => sandbox],
  ])('%s answers an empty voice catalog', async (url, token) => {
    const response = await t.inject({ method: 'GET', url, headers: bearer(token()) });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ voices: [] });
  });

  it('needs the audioapp:voices:read scope', async () => {
    const response = await t.inject({ method: 'GET', url: '/v1/voices', headers: bearer(withoutScope) });
    expect(response.statusCode).toBe(403);
    expect(response.json().error).toBe('insufficient_scope');
    expect((await t.inject({ method: 'GET', url: '/v1/voices' })).statusCode).toBe(401);
  });

  it('refuses query parameters, since it takes none', async () => {
    const response = await t.inject({ method: 'GET', url: '/v1/voices?language=pt-BR', headers: bearer(live) });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: 'invalid_request', error_description: expect.stringContaining('language') });
  });

  it('is documented under the Audio tag with its scope', async () => {
    const document = (await t.inject({ method: 'GET', url: '/docs/openapi.json' })).json();
    for (const path of ['/v1/voices', '/sandbox/v1/voices']) {
      expect(document.paths[path].get).toMatchObject({ tags: ['Audio'], 'x-required-scopes': { anyOf: ['audioapp:voices:read'] } });
    }
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/media'))).toEqual([]);
  });
});
