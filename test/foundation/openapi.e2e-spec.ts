import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let document: {
  components: { securitySchemes: Record<string, { type: string; scheme: string }> };
  paths: Record<string, Record<string, { tags?: string[]; security?: unknown[]; responses: Record<string, unknown>; 'x-required-scopes'?: { anyOf: string[] }; 'x-extension'?: boolean }>>;
};

beforeAll(async () => {
  t = await startTestApp();
  document = (await t.inject({ method: 'GET', url: '/docs/openapi.json' })).json();
});
afterAll(() => t.close());

const operations = () =>
  Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method, operation })));

describe('the OpenAPI document at /docs/openapi.json', () => {
  it('declares the bearer security scheme', () => {
    expect(document.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('gives every protected operation its scopes, bearer security and 401 response', () => {
    const protectedOperations = operations().filter(({ operation }) => operation['x-required-scopes']);
    expect(protectedOperations.length).toBeGreaterThan(0);
    for (const { operation } of protectedOperations) {
      expect(operation.security).toEqual([{ bearer: [] }]);
      expect(operation.responses['401']).toBeDefined();
    }
  });

  it('tags every operation and marks extensions', () => {
    for (const { operation } of operations()) expect(operation.tags?.length).toBeGreaterThan(0);
    const status = document.paths['/platform/v1/subscriber/{id}/status'].get;
    expect(status['x-extension']).toBe(true);
    expect(status.tags).toContain('Extensions');
    expect(document.paths['/platform/v1/entitlements'].post['x-extension']).toBeUndefined();
  });

  it('marks extension fields of contract shapes', () => {
    const schemas = (document as unknown as { components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> } }).components.schemas;
    expect(schemas.EntitlementRequestDto.properties.effective_at['x-extension']).toBe(true);
    expect(schemas.EntitlementRequestDto.properties.subscriber_id['x-extension']).toBeUndefined();
    expect(schemas.EntitlementWriteDto.properties.applied['x-extension']).toBe(true);
    expect(schemas.EntitlementWriteDto.properties.ok['x-extension']).toBeUndefined();
  });
});

test('Swagger UI is served at /docs', async () => {
  const page = await t.inject({ method: 'GET', url: '/docs' });
  expect(page.statusCode).toBe(200);
  expect(page.headers['content-type']).toMatch(/text\/html/);
  expect(page.body).toContain('swagger-ui');
});
