import type { TestApp } from './test-app.js';

/**
 * The paths of the running app's OpenAPI document (e.g. `/v1/novels/{id}/chapters`), so a
 * table-driven test can include a route that work in progress elsewhere adds later: the
 * row runs once the route exists.
 */
export async function documentedPaths(t: TestApp): Promise<Set<string>> {
  const document = (await t.inject({ method: 'GET', url: '/docs/openapi.json' })).json();
  return new Set(Object.keys(document.paths as object));
}
