import { byObject } from '../../../shared/memo.js';
import type { Category, Novel, NovelPage } from '../domain/catalog.js';
import { catalogEntryDto, categoryDto, type CategoryListDto } from './catalog.dto.js';

/*
 * The catalog's hottest answers as JSON text, made once per catalog snapshot object: the
 * snapshot keeps its objects until the catalog changes and then replaces them all (ADR
 * 0105), so text kept by object is never older than what it was made from. Kept as text, not
 * bytes: Node writes a text body in one piece with the headers (ADR 0123).
 */

const categoryLists = byObject('catalog.category-list-json', (categories: readonly Category[]) =>
  JSON.stringify({ data: categories.map(categoryDto) } satisfies CategoryListDto),
);

const entries = byObject('catalog.entry-json', (novel: Novel) => JSON.stringify(catalogEntryDto(novel)));

/** The catalog page is the hottest catalog read and its entries the bulk of its bytes; the catalog answers a query with the same page object while it lasts. */
const pages = byObject(
  'catalog.page-json',
  (page: NovelPage) =>
    `{"data":[${page.novels.map((novel) => entries.get(novel)).join(',')}],"page":${page.page},"page_size":${page.pageSize},"total":${page.total}}`,
);

/** A CategoryListDto's JSON. */
export const categoryListJson = (categories: readonly Category[]): string => categoryLists.get(categories);

/** A NovelPageDto's JSON: JSON.stringify(novelPageDto(page)), made once per page object. */
export const novelPageJson = (page: NovelPage): string => pages.get(page);
