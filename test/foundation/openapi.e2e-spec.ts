import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { OPERATION_IDS } from '../../src/shared/http/openapi/index.js';
import { useTestApp } from '../support/test-app.js';

type Schema = Record<string, unknown> & { properties?: Record<string, Schema> };
interface Response {
  headers?: Record<string, unknown>;
  content?: { 'application/json': { example?: { error: string; error_description: string } } };
}
interface Operation {
  operationId: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; schema: Schema; example?: unknown }[];
  responses: Record<string, Response>;
  'x-required-scopes'?: { anyOf: string[] };
  'x-extension'?: boolean;
}
interface Document {
  openapi: string;
  servers: { url: string }[];
  tags: { name: string; description?: string }[];
  webhooks: Record<string, { post: { parameters: { name: string }[]; requestBody: unknown } }>;
  components: { securitySchemes: Record<string, Schema>; schemas: Record<string, Schema> };
  paths: Record<string, Record<string, Operation>>;
}

const t = useTestApp();
let document: Document;

beforeAll(async () => {
  document = (await t.inject({ method: 'GET', url: '/docs/openapi.json' })).json();
});

const operations = () =>
  Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method, operation })));
const operation = (method: string, path: string) => document.paths[path][method];

describe('the OpenAPI document at /docs/openapi.json', () => {
  it('is OpenAPI 3.1 with a server', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers.length).toBeGreaterThan(0);
  });

  it('declares an OAuth 2.0 client-credentials scheme per issuer, with its scopes', () => {
    const { platform, kids, clientBasic } = document.components.securitySchemes;
    expect(platform).toMatchObject({ type: 'oauth2', flows: { clientCredentials: { tokenUrl: '/platform/v1/oauth2/token' } } });
    expect(Object.keys((platform.flows as { clientCredentials: { scopes: object } }).clientCredentials.scopes)).toContain('textapp:catalog:read');
    expect(kids).toMatchObject({
      type: 'oauth2',
      flows: { clientCredentials: { tokenUrl: '/kids/v1/oauth2/token', scopes: { 'kidsapp:engagement:read': expect.any(String) } } },
    });
    expect(clientBasic).toMatchObject({ type: 'http', scheme: 'basic' });
  });

  it('derives security from the access rule: any one of its scopes, on its issuer', () => {
    expect(operation('get', '/v1/novels').security).toEqual([{ platform: ['textapp:catalog:read'] }, { platform: ['audioapp:audio:read'] }]);
    expect(operation('get', '/v1/categories').security).toEqual([{ platform: [] }]);
    // The children's service accepts its own tokens and platform tokens carrying its scope.
    expect(operation('get', '/kids/v1/engagement/summary').security).toEqual([
      { platform: ['kidsapp:engagement:read'] },
      { kids: ['kidsapp:engagement:read'] },
    ]);
    expect(operation('post', '/platform/v1/oauth2/token').security).toEqual([{ clientBasic: [] }]);
    expect(operation('get', '/health/live').security).toEqual([]);
    for (const { operation } of operations()) {
      if (operation['x-required-scopes']) expect(operation.responses['401']).toBeDefined();
      expect(operation.security).toBeDefined();
    }
  });

  it('names every operation from the one table, sandbox operations with their prefix', () => {
    const ids = operations().map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z]+$/);
    expect(operation('get', '/v1/novels').operationId).toBe('listNovels');
    expect(operation('get', '/sandbox/v1/novels').operationId).toBe('sandboxListNovels');
    expect(operation('get', '/v1/novels/{id}/chapters/{chapterNumber}/stream').operationId).toBe('getStreamUrl');
    expect(operation('get', '/v1/subscribers/{id}/reading-progress').operationId).toBe('getReadingProgressAlias');
    expect(ids).toEqual(expect.arrayContaining(Object.values(OPERATION_IDS)));
  });

  it('declares error answers with their headers and an example of a code they carry', () => {
    const token = operation('post', '/platform/v1/oauth2/token').responses;
    expect(token['401'].content?.['application/json'].example?.error).toBe('invalid_client');
    expect(token['429'].headers).toHaveProperty('Retry-After');
    expect(token['401'].headers).toHaveProperty('WWW-Authenticate');
    const novels = operation('get', '/v1/novels').responses;
    expect(novels['401'].content?.['application/json'].example?.error).toBe('invalid_token');
    expect(novels['403'].content?.['application/json'].example?.error).toBe('insufficient_scope');
    expect(novels['503'].headers).toHaveProperty('Retry-After');
    expect(operation('delete', '/platform/v1/webhook-endpoints/{id}').responses['404'].content?.['application/json'].example?.error).toBe('not_found');
    // In the response's own words where it has them.
    expect(token['400'].content?.['application/json'].example?.error_description).not.toMatch(/subscriber_id/);
    expect(operation('get', '/platform/v1/events').responses['410'].content?.['application/json'].example).toEqual({
      error: 'events_expired',
      error_description: expect.stringMatching(/^Events after/),
    });
    for (const { operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        expect(response.headers).toHaveProperty('x-request-id');
        if (Number(status) >= 400) expect(response.content?.['application/json'].example?.error).toEqual(expect.any(String));
      }
    }
  });

  it('types integer fields as integers and gives parameters the rules the server enforces', () => {
    expect(document.components.schemas.NovelPageDto.properties?.total.type).toBe('integer');
    expect(document.components.schemas.PlaybackPositionDto.properties?.position_seconds.type).toBe('integer');
    const stream = operation('get', '/v1/novels/{id}/chapters/{chapterNumber}/stream').parameters!;
    const byName = Object.fromEntries(stream.map((parameter) => [parameter.name, parameter.schema]));
    expect(byName.id).toMatchObject({ pattern: expect.any(String), maxLength: 100 });
    expect(byName.chapterNumber).toMatchObject({ type: 'integer', minimum: 1, maximum: 100000 });
    expect(byName.subscriber_id).toMatchObject({ pattern: expect.any(String), maxLength: 128 });
  });

  it('leaves query examples out of "Try it out"', () => {
    for (const parameter of operation('get', '/v1/novels').parameters!) {
      expect(parameter.example).toBeUndefined();
      expect(parameter.schema.example).toBeUndefined();
    }
  });

  it('declares every tag with a description, the extensions last, and tags and marks extensions', () => {
    for (const tag of document.tags) expect(tag.description).toEqual(expect.any(String));
    expect(document.tags.at(-1)?.name).toBe('Extensions');
    for (const { operation } of operations()) expect(operation.tags?.length).toBeGreaterThan(0);
    const status = operation('get', '/platform/v1/subscriber/{id}/status');
    expect(status['x-extension']).toBe(true);
    expect(status.tags).toContain('Extensions');
    expect(operation('post', '/platform/v1/entitlements')['x-extension']).toBeUndefined();
    const paths = operations();
    const firstExtensionOnly = paths.findIndex(({ path }) => Object.values(document.paths[path]).every((op) => op['x-extension']));
    expect(paths.slice(firstExtensionOnly).every(({ path }) => Object.values(document.paths[path]).every((op) => op['x-extension']))).toBe(true);
  });

  it('marks extension fields of contract shapes', () => {
    const schemas = document.components.schemas;
    expect(schemas.EntitlementRequestDto.properties?.effective_at['x-extension']).toBe(true);
    expect(schemas.EntitlementRequestDto.properties?.subscriber_id['x-extension']).toBeUndefined();
    expect(schemas.EntitlementWriteDto.properties?.applied['x-extension']).toBe(true);
    expect(schemas.EntitlementWriteDto.properties?.ok['x-extension']).toBeUndefined();
  });

  it('describes the webhooks with their payloads and signature headers', () => {
    expect(Object.keys(document.webhooks)).toEqual(['novel.finished', 'chapter.unlocked']);
    const headers = document.webhooks['novel.finished'].post.parameters.map((parameter) => parameter.name);
    expect(headers).toEqual(expect.arrayContaining(['webhook-id', 'webhook-timestamp', 'webhook-signature']));
    expect(document.components.schemas.ChapterUnlockedEvent.properties?.data.properties?.chapter_number.type).toBe('integer');
  });

  it('passes Redocly CLI lint (recommended rules) with no error and no warning', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'openapi-')), 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    // The JSON report alone on stdout: the CLI prints notices (such as its Node.js support) on stderr.
    const { stdout } = await promisify(execFile)('npx', ['redocly', 'lint', '--format=json', file], {
      env: { ...process.env, REDOCLY_TELEMETRY: 'off' },
    }).catch((failure: { stdout: string }) => failure);
    const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number }; problems: unknown[] };
    expect(report.problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);
});

test('Swagger UI is served at /docs', async () => {
  const page = await t.inject({ method: 'GET', url: '/docs' });
  expect(page.statusCode).toBe(200);
  expect(page.headers['content-type']).toMatch(/text\/html/);
  expect(page.body).toContain('swagger-ui');
});
