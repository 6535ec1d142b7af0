import type { Scope } from '../../src/modules/identity/index.js';
import { importCatalog, manifest, manifestNovel } from '../fixtures/catalog-fixture.js';
import { partnerClient } from '../fixtures/partner-client.js';
import { useTestApp } from '../support/test-app.js';

const t = useTestApp();

beforeAll(async () => {
  await importCatalog(t, manifest([manifestNovel('scoped')]));
});

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const position = { novel_id: 'scoped', chapter_id: 'scoped-ch1', position_seconds: 1 };

/** Every text-and-audio route of the catalog, reading and playback modules, with the scopes of DECISIONS 4. */
// Rows always have four cells: Jest reads a test function with more parameters than cells as one taking `done`.
const ROUTES: [Method, string, Scope[], object | undefined][] = [
  ['GET', '/novels', ['textapp:catalog:read', 'audioapp:audio:read'], undefined],
  ['GET', '/novels/scoped/chapters', ['textapp:catalog:read', 'audioapp:audio:read'], undefined],
  ['GET', '/novels/scoped/chapters/1/content?subscriber_id=s', ['textapp:content:read'], undefined],
  ['GET', '/novels/scoped/choices?subscriber_id=s', ['textapp:progress:read'], undefined],
  ['POST', '/novels/scoped/choices', ['textapp:progress:write'], { subscriber_id: 's', choice_id: 'stay' }],
  ['GET', '/subscriber/s/reading-progress', ['textapp:progress:read'], undefined],
  ['GET', '/subscribers/s/reading-progress', ['textapp:progress:read'], undefined],
  ['POST', '/subscribers/s/novels', ['textapp:progress:write'], { novel_id: 'scoped' }],
  ['DELETE', '/subscribers/s/novels/scoped', ['textapp:progress:write'], undefined],
  ['GET', '/subscribers/s/playback-position?novel_id=scoped', ['audioapp:playback:read'], undefined],
  ['GET', '/subscriber/s/playback-position?novel_id=scoped', ['audioapp:playback:read'], undefined],
  ['PUT', '/subscribers/s/playback-position', ['audioapp:playback:write'], position],
  ['PUT', '/subscriber/s/playback-position', ['audioapp:playback:write'], position],
];

describe('scopes of the catalog, reading and playback routes', () => {
  it.each(ROUTES)('%s %s needs one of %j', async (method, path, scopes, body) => {
    const without = await partnerClient(t, { scopes: ['platform:billing:read'] });
    const refused = await without.call(method, path, body);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toBe('insufficient_scope');
    for (const scope of scopes) {
      const allowed = await partnerClient(t, { scopes: [scope] });
      // Past the guard, the route may still refuse for its own reasons (subscriber_not_entitled, not_found…).
      const response = await allowed.call(method, path, body);
      expect(response.body ? response.json().error : undefined).not.toBe('insufficient_scope');
    }
  });

  it('answers GET /categories to any valid token, and 401 to none on every route', async () => {
    const any = await partnerClient(t, { scopes: ['platform:billing:read'] });
    expect((await any.call('GET', '/categories')).statusCode).toBe(200);
    for (const [method, path] of ROUTES) expect((await t.inject({ method, url: `/v1${path}` })).statusCode).toBe(401);
  });
});
