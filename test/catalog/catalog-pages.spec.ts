import type { Novel, NovelQuery } from '../../src/modules/catalog/domain/catalog.js';
import { catalogEntryDto } from '../../src/modules/catalog/http/catalog.dto.js';
import { novelPageJson } from '../../src/modules/catalog/http/catalog.json.js';
import { CatalogSnapshot } from '../../src/modules/catalog/infrastructure/catalog-snapshot.js';

const novel = (id: string, categoryId: string, tags: string[]): Novel => ({
  id,
  title: `Title ${id}`,
  synopsis: 'Synopsis',
  author: 'Author',
  categoryId,
  tags,
  language: 'pt-BR',
  coverUrl: null,
  totalChapters: 3,
  hasAudio: id.endsWith('a'),
  updatedAt: new Date('2026-11-01T00:00:00Z'),
});

const NOVELS = [novel('n1a', 'a b', ['c']), novel('n2', 'a', ['b c']), novel('n3a', 'drama', ['c'])];
const snapshot = () => new CatalogSnapshot([], NOVELS, new Map(), new Map(), new Map());
const query = (q: Partial<NovelQuery> = {}): NovelQuery => ({ page: 1, pageSize: 20, ...q });
const ids = (s: CatalogSnapshot, q: Partial<NovelQuery>) => s.findNovels(query(q)).novels.map((n) => n.id);

describe('catalog pages of a snapshot', () => {
  it('answers the same query with the same page object, and its JSON is the NovelPageDto', () => {
    const catalog = snapshot();
    const page = catalog.findNovels(query({ pageSize: 2 }));
    expect(catalog.findNovels(query({ pageSize: 2 }))).toBe(page);
    // The text made by hand is exactly what serialising the DTO gives.
    expect(novelPageJson(page)).toBe(JSON.stringify({ data: page.novels.map(catalogEntryDto), page: 1, page_size: 2, total: 3 }));
    expect(JSON.parse(novelPageJson(page))).toEqual({
      data: [expect.objectContaining({ id: 'n1a', category_id: 'a b', tags: ['c'] }), expect.objectContaining({ id: 'n2' })],
      page: 1,
      page_size: 2,
      total: 3,
    });
  });

  it('keeps queries apart whose filters would run together as text', () => {
    const catalog = snapshot();
    expect(ids(catalog, { categoryId: 'a b', tag: 'c' })).toEqual(['n1a']);
    expect(ids(catalog, { categoryId: 'a', tag: 'b c' })).toEqual(['n2']);
    expect(ids(catalog, { categoryId: 'a b' })).toEqual(['n1a']);
    expect(ids(catalog, { tag: 'c' })).toEqual(['n1a', 'n3a']);
    expect(ids(catalog, { hasAudio: true })).toEqual(['n1a', 'n3a']);
    expect(ids(catalog, { hasAudio: false })).toEqual(['n2']);
    expect(ids(catalog, { page: 2, pageSize: 2 })).toEqual(['n3a']);
  });

  it('keeps only the most recently asked pages, so a crawl of every page size cannot grow it without bound', () => {
    const catalog = snapshot();
    const first = catalog.findNovels(query());
    for (let pageSize = 21; pageSize <= 100; pageSize++) for (let page = 1; page <= 4; page++) catalog.findNovels(query({ page, pageSize }));
    const again = catalog.findNovels(query());
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
    // A page asked for often stays while others come and go.
    for (let page = 1; page <= 300; page++) {
      catalog.findNovels(query({ page, pageSize: 7 }));
      expect(catalog.findNovels(query())).toBe(again);
    }
  });
});
