import type { TestApp } from './test-app.js';

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

/**
 * Fails unless the OpenAPI document has an operation for this concrete request (query
 * ignored): a table row whose route was renamed or removed must fail, not quietly test a
 * 404. `row` names the row in the failure.
 */
export function expectDocumented(operations: DocumentedOperation[], row: string, method: string, url: string): void {
  const path = url.split('?')[0];
  const matches = (operation: DocumentedOperation) =>
    operation.method === method && new RegExp(`^${operation.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path);
  expect({ row, route: `${method} ${path}`, documented: operations.some(matches) }).toEqual({ row, route: `${method} ${path}`, documented: true });
}
