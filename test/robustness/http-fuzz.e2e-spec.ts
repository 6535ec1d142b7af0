import { Ajv } from 'ajv';
import ajvFormats from 'ajv-formats';
import fc from 'fast-check';
import { useTestApp } from '../support/test-app.js';

/**
 * A property-based fuzzer over every operation of the OpenAPI document: random and
 * adversarial path parameters, query strings, bodies and credentials never produce a 5xx,
 * and every answer is either the contract's error body or a success body matching the
 * documented schema. CI runs a bounded number of cases (FUZZ_RUNS to change it).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 400);

interface Operation {
  method: string;
  path: string;
  parameters: { name: string; in: 'path' | 'query'; schema?: { type?: string; enum?: unknown[] } }[];
  hasBody: boolean;
  responses: Record<string, { content?: Record<string, { schema?: object }> }>;
}

const t = useTestApp();
let operations: Operation[];
let tokens: { live: string; sandbox: string };
let validate: (schema: object, body: unknown) => string | null;

beforeAll(async () => {
  const document = (await t.inject({ method: 'GET', url: '/docs/openapi.json' })).json();
  operations = Object.entries(document.paths as Record<string, Record<string, Omit<Operation, 'method' | 'path' | 'hasBody'> & { requestBody?: unknown }>>)
    .flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        method: method.toUpperCase(),
        path,
        parameters: (operation.parameters ?? []) as Operation['parameters'],
        hasBody: operation.requestBody !== undefined,
        responses: operation.responses,
      })),
    )
    .filter((operation) => !operation.path.startsWith('/docs'));
  const live = await t.partner();
  const sandbox = await t.app
    .get((await import('../../src/modules/identity/index.js')).PartnerCredentialsService)
    .createCredential(live.partner_id, undefined, 'sandbox');
  tokens = { live: await t.token(live), sandbox: await t.token(sandbox) };
  const ajv = new Ajv({ strict: false, allErrors: false });
  // ajv-formats is CommonJS: its default export arrives as the module object.
  (ajvFormats as unknown as { default: (ajv: Ajv) => void }).default(ajv);
  ajv.addSchema({ $id: 'openapi', components: document.components });
  validate = (schema, body) => {
    const resolved = JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"openapi#/components/'));
    return ajv.validate(resolved, body) ? null : ajv.errorsText();
  };
}, 60_000);

const adversarialText = fc.oneof(
  fc.constantFrom(
    '%zz',
    '%E0%A4%A',
    '..',
    '',
    ' ',
    '0',
    '-1',
    '1',
    '999999999999999999999',
    '1e309',
    'NaN',
    'null',
    'true',
    '[]',
    '{}',
    "' OR 1=1 --",
    '"; DROP TABLE novels; --',
    '../../etc/passwd',
    '%00',
    '\u0000',
    '\uD800',
    'ℌ𝔢𝔩𝔩𝔬',
    'the-heir',
    'sub-1',
    'a'.repeat(5000),
    '<script>alert(1)</script>',
    '${jndi:ldap://x}',
  ),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
);

/** Percent-encodes any string (lone surrogates included); some values go raw on purpose. */
function pathSegment(value: string): string {
  if (value.startsWith('%') || value === '..') return value;
  return [...Buffer.from(value, 'utf8')]
    .map((byte) => (/[A-Za-z0-9._~-]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).padStart(2, '0')}`))
    .join('');
}

const jsonValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.dictionary(
    fc.constantFrom('subscriber_id', 'novel_id', 'chapter_id', 'position_seconds', 'product', 'status', 'plan', 'choice_id', 'url', 'events', 'started_at'),
    fc.oneof(adversarialText, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(adversarialText, { maxLength: 3 })),
  ),
);

const requestFor = (operation: Operation) =>
  fc.record({
    pathValues: fc.array(adversarialText, { minLength: 4, maxLength: 4 }),
    query: fc.array(
      fc.tuple(
        fc.oneof(fc.constantFrom(...operation.parameters.filter((p) => p.in === 'query').map((p) => p.name), 'unknown_param'), fc.string({ maxLength: 10 })),
        adversarialText,
      ),
      { maxLength: 4 },
    ),
    body: fc.oneof(
      jsonValue.map((v) => ({ json: v })),
      adversarialText.map((raw) => ({ raw })),
      // Deep nesting once overflowed the stack of the body validation.
      fc.integer({ min: 1, max: 20_000 }).map((depth) => ({ raw: '['.repeat(depth) + ']'.repeat(depth) })),
    ),
    credential: fc.constantFrom('live', 'sandbox', 'none', 'garbage') as fc.Arbitrary<'live' | 'sandbox' | 'none' | 'garbage'>,
  });

const anyRequest = fc.integer({ min: 0, max: 10_000 }).chain((index) => {
  const operation = operations[index % operations.length];
  return requestFor(operation).map((request) => ({ operation, ...request }));
});

test('no input produces a 5xx, and every answer has a contract shape', async () => {
  const seen = { success: 0, error: 0 };
  await fc.assert(
    fc.asyncProperty(anyRequest, async ({ operation, pathValues, query, body, credential }) => {
      let i = 0;
      const path = operation.path.replace(/\{[^}]+\}/g, () => pathSegment(pathValues[i++ % pathValues.length]));
      const search = new URLSearchParams(query.map(([k, v]): [string, string] => [k, v])).toString();
      const headers: Record<string, string> = {};
      if (credential === 'live' || credential === 'sandbox') headers.authorization = `Bearer ${tokens[credential]}`;
      if (credential === 'garbage') headers.authorization = 'Bearer eyJhbGciOiJFUzI1NiJ9.e30.x';
      let payload: string | undefined;
      if (operation.method !== 'GET' && operation.method !== 'DELETE') {
        payload = 'json' in body ? JSON.stringify(body.json) : body.raw;
        headers['content-type'] = operation.path.endsWith('/oauth2/token') ? 'application/x-www-form-urlencoded' : 'application/json';
      }
      const response = await t.inject({ method: operation.method as 'GET', url: search ? `${path}?${search}` : path, headers, payload });
      const context = `${operation.method} ${path}?${search} → ${response.statusCode} ${response.body.slice(0, 300)}`;
      if (response.statusCode >= 500) throw new Error(`server error: ${context}`);
      if (response.statusCode >= 400) {
        const error = response.json();
        if (typeof error.error !== 'string' || typeof error.error_description !== 'string' || Object.keys(error).length !== 2) {
          throw new Error(`not a contract error body: ${context}`);
        }
        seen.error += 1;
        return;
      }
      if (response.statusCode === 204 || response.headers['content-type']?.toString().startsWith('text/plain')) return;
      // An empty path value addresses another route (`/test-clocks/` is the list, not an id):
      // its answer is checked above, not against this operation's schema.
      if (path.endsWith('/') || path.includes('//')) return;
      const documented = operation.responses[String(response.statusCode)]?.content?.['application/json']?.schema;
      if (!documented) throw new Error(`undocumented success status: ${context}`);
      const problem = validate(documented, response.json());
      if (problem) throw new Error(`success body does not match its schema (${problem}): ${context}`);
      seen.success += 1;
    }),
    { numRuns: RUNS },
  );
  // Both kinds of answer were exercised, so neither check was vacuous.
  expect(seen.success).toBeGreaterThan(0);
  expect(seen.error).toBeGreaterThan(0);
}, 300_000);
