import { DEMO_MP3, importCatalog, manifest, manifestNovel } from '../fixtures/catalog-fixture.js';
import { statementsDuring } from '../fixtures/query-counter.js';
import { bearer, useTestApp } from '../support/test-app.js';

const t = useTestApp();
let live: string;
let sandbox: string;

beforeAll(async () => {
  live = await t.token(await t.partner({ scopes: ['textapp:catalog:read'] }));
  sandbox = await t.token(await t.partner({ scopes: ['audioapp:audio:read'], environment: 'sandbox' }));
  await importCatalog(
    t,
    manifest([
      manifestNovel('zebra-nights', { title: 'Zebra Nights', categoryId: 'mystery', tags: ['noir'] }),
      manifestNovel('a-second', { title: 'Alpha' }),
      manifestNovel('a-first', { title: 'Alpha', tags: ['drama', 'summer'] }),
      manifestNovel('gone-novel', { title: 'Beta', status: 'removed' }),
      manifestNovel('with-audio', { title: 'Gamma', audio: { file: DEMO_MP3, status: 'ready' } }),
    ]),
  );
});

const get = (url: string, token = live) => t.inject({ method: 'GET', url, headers: bearer(token) });

describe('GET /categories', () => {
  it("lists the categories of the caller's environment in sort_order, to any valid token", async () => {
    const anyToken = await t.token(await t.partner({ scopes: ['platform:billing:read'] }));
    const response = await get('/v1/categories', anyToken);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      data: [
        { id: 'romance', name: 'Romance', sort_order: 1 },
        { id: 'mystery', name: 'Mystery', sort_order: 2 },
      ],
    });
    // The sandbox has its own catalog: the demo one, loaded on start.
    expect((await get('/sandbox/v1/categories', sandbox)).json().data.map((c: { id: string }) => c.id)).toEqual(['romance', 'mystery', 'fantasy']);
  });

  it('answers 401 without a token', async () => {
    expect((await t.inject({ method: 'GET', url: '/v1/categories' })).statusCode).toBe(401);
  });
});

describe('GET /novels', () => {
  it('answers catalog entries with every field, ordered by title then id, without removed novels', async () => {
    const response = await get('/v1/novels');
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toEqual({ data: expect.any(Array), page: 1, page_size: 20, total: 4 });
    expect(body.data.map((n: { id: string }) => n.id)).toEqual(['a-first', 'a-second', 'with-audio', 'zebra-nights']);
    expect(body.data[0]).toEqual({
      id: 'a-first',
      title: 'Alpha',
      synopsis: 'Synopsis of a-first',
      author: 'Test Author',
      category_id: 'romance',
      tags: ['drama', 'summer'],
      language: 'pt-BR',
      cover_url: null,
      total_chapters: 3,
      has_audio: false,
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
  });

  it.each([
    ['category_id=mystery', ['zebra-nights']],
    ['category_id=unknown', []],
    ['tag=summer', ['a-first']],
    ['tag=drama&category_id=romance', ['a-first', 'a-second', 'with-audio']],
    ['has_audio=true', ['with-audio']],
    ['has_audio=false', ['a-first', 'a-second', 'zebra-nights']],
  ])('filters with %s', async (query, ids) => {
    const body = (await get(`/v1/novels?${query}`)).json();
    expect(body.data.map((n: { id: string }) => n.id)).toEqual(ids);
    expect(body.total).toBe(ids.length);
  });

  it('pages, reporting the total over all pages', async () => {
    const second = (await get('/v1/novels?page=2&page_size=3')).json();
    expect(second).toMatchObject({ page: 2, page_size: 3, total: 4 });
    expect(second.data.map((n: { id: string }) => n.id)).toEqual(['zebra-nights']);
    const beyond = (await get('/v1/novels?page=9&page_size=3')).json();
    expect(beyond).toEqual({ data: [], page: 9, page_size: 3, total: 4 });
  });

  it.each([
    ['page=0', 'page'],
    ['page=abc', 'page'],
    ['page=1.5', 'page'],
    ['page_size=0', 'page_size'],
    ['page_size=101', 'page_size'],
    ['has_audio=yes', 'has_audio'],
    ['category_id=Not%20A%20Slug', 'category_id'],
    ['colour=red', 'colour'],
  ])('answers 400 invalid_request naming the parameter for %s', async (query, name) => {
    const response = await get(`/v1/novels?${query}`);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: 'invalid_request', error_description: expect.stringContaining(name) });
  });

  it('accepts audioapp:audio:read as well, and refuses other scopes with 403', async () => {
    expect((await get('/sandbox/v1/novels', sandbox)).statusCode).toBe(200);
    const other = await t.token(await t.partner({ scopes: ['textapp:progress:read'] }));
    const response = await get('/v1/novels', other);
    expect(response.statusCode).toBe(403);
    expect(response.json().error).toBe('insufficient_scope');
  });

  it('keeps live and sandbox catalogs apart', async () => {
    const sandboxIds = (await get('/sandbox/v1/novels', sandbox)).json().data.map((n: { id: string }) => n.id);
    expect(sandboxIds).toHaveLength(6);
    expect(sandboxIds).not.toContain('a-first');
    expect((await get('/v1/novels')).json().data.map((n: { id: string }) => n.id)).not.toContain('the-heir');
  });

  it('reads pages, categories and chapter lists from memory, without a statement', async () => {
    await get('/v1/novels'); // the environment's catalog is loaded on its first read
    expect(await statementsDuring(t, () => get('/v1/novels?page_size=100'))).toEqual([]);
    expect(await statementsDuring(t, () => get('/v1/novels?tag=summer&has_audio=false'))).toEqual([]);
    expect(await statementsDuring(t, () => get('/v1/categories'))).toEqual([]);
    expect(await statementsDuring(t, () => get('/v1/novels/a-first/chapters'))).toEqual([]);
  });
});
