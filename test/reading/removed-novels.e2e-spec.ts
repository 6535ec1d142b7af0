import { importCatalog, manifest, manifestNovel } from '../fixtures/catalog-fixture.js';
import { partnerClient, type PartnerClient } from '../fixtures/partner-client.js';
import { useTestApp } from '../support/test-app.js';

const t = useTestApp();
let a: PartnerClient;

beforeAll(async () => {
  await importCatalog(t, manifest([manifestNovel('gone', { chapters: 2 })]));
  a = await partnerClient(t);
  // A subscriber who was reading and listening to it before it was removed.
  await a.entitle('reader', { product: 'audioapp' });
  expect((await a.call('POST', '/subscribers/reader/novels', { novel_id: 'gone' })).statusCode).toBe(201);
  expect((await a.call('PUT', '/subscribers/reader/playback-position', { novel_id: 'gone', chapter_id: 'gone-ch1', position_seconds: 3 })).statusCode).toBe(
    200,
  );
  await importCatalog(t, manifest([manifestNovel('gone', { chapters: 2, status: 'removed' })]));
});

const ENDPOINTS: [string, 'GET' | 'POST' | 'PUT' | 'DELETE', (id: string) => string, (id: string) => object | undefined][] = [
  ['chapter list', 'GET', (id) => `/novels/${id}/chapters`, () => undefined],
  ['chapter list with a subscriber', 'GET', (id) => `/novels/${id}/chapters?subscriber_id=reader`, () => undefined],
  ['chapter text', 'GET', (id) => `/novels/${id}/chapters/1/content?subscriber_id=reader`, () => undefined],
  ['endings state', 'GET', (id) => `/novels/${id}/choices?subscriber_id=reader`, () => undefined],
  ['ending choice', 'POST', (id) => `/novels/${id}/choices`, () => ({ subscriber_id: 'reader', choice_id: 'stay' })],
  ['open', 'POST', () => '/subscribers/reader/novels', (id) => ({ novel_id: id })],
  ['remove', 'DELETE', (id) => `/subscribers/reader/novels/${id}`, () => undefined],
  ['playback read', 'GET', (id) => `/subscribers/reader/playback-position?novel_id=${id}`, () => undefined],
  ['playback read (alias)', 'GET', (id) => `/subscriber/reader/playback-position?novel_id=${id}`, () => undefined],
  ['playback write', 'PUT', () => '/subscribers/reader/playback-position', (id) => ({ novel_id: id, chapter_id: `${id}-ch1`, position_seconds: 1 })],
];

describe('a novel removed from the catalog, or one that never existed', () => {
  it.each(
    ENDPOINTS.flatMap(([name, method, path, body]) => [
      [name, 'gone', method, path('gone'), body('gone')],
      [name, 'never-existed', method, path('never-existed'), body('never-existed')],
    ]),
  )('answers 404 invalid_request on the %s endpoint for %s', async (_, __, method, path, body) => {
    const response = await a.call(method as 'GET', path as string, body as object | undefined);
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 404,
      body: { error: 'invalid_request', error_description: expect.stringMatching(/does not exist or was removed/) },
    });
  });

  it('is not listed in the catalog nor in reading progress', async () => {
    expect((await a.call('GET', '/novels')).json()).toEqual({ data: [], page: 1, page_size: 20, total: 0 });
    expect((await a.call('GET', '/subscriber/reader/reading-progress')).json()).toMatchObject({ active_novel_count: 0, novels: [] });
  });
});
