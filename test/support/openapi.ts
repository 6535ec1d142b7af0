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

export interface DocumentedOperation {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  path: string;
  /** Content types of its request body, if it takes one. */
  bodyTypes: string[];
  queryParameters: string[];
}

/** Every operation of the running app's OpenAPI document. */
export async function documentedOperations(t: TestApp): Promise<DocumentedOperation[]> {
  const document = (await t.inject({ method: 'GET', url: '/docs/openapi.json' })).json();
  type Operation = { requestBody?: { content?: object }; parameters?: { name: string; in: string }[] };
  return Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      method: method.toUpperCase() as DocumentedOperation['method'],
      path,
      bodyTypes: Object.keys(operation.requestBody?.content ?? {}),
      queryParameters: (operation.parameters ?? []).filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name),
    })),
  );
}
