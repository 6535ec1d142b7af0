import { useTestApp } from '../support/test-app.js';

/**
 * An example in the OpenAPI document must stay valid: a fixed instant sent as a request
 * field is refused once it leaves the window the field accepts (72 hours back for a live
 * `effective_at`, a year around now for a test clock), so request instants carry none.
 */
const t = useTestApp();

type Schema = { $ref?: string; format?: string; example?: unknown; examples?: unknown; properties?: Record<string, Schema> };

it('gives no fixed example to any date-time field of a request body', async () => {
  const document = (await t.inject({ method: 'GET', url: '/docs/openapi.json' })).json();
  const resolve = (schema: Schema): Schema => (schema.$ref ? document.components.schemas[schema.$ref.split('/').at(-1) as string] : schema);
  const dated: string[] = [];
  for (const [path, methods] of Object.entries(
    document.paths as Record<string, Record<string, { requestBody?: { content?: Record<string, { schema: Schema }> } }>>,
  )) {
    for (const [method, operation] of Object.entries(methods)) {
      for (const { schema } of Object.values(operation.requestBody?.content ?? {})) {
        for (const [name, property] of Object.entries(resolve(schema).properties ?? {})) {
          if (property.format === 'date-time')
            dated.push(`${method.toUpperCase()} ${path} ${name}: ${JSON.stringify(property.example ?? property.examples ?? null)}`);
        }
      }
    }
  }
  expect(dated.length).toBeGreaterThanOrEqual(4);
  expect(dated.filter((line) => !line.endsWith(': null'))).toEqual([]);
});
