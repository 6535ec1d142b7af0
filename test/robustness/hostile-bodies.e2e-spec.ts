import { MAX_BODY_DEPTH } from '../../src/shared/http/body-depth.js';
import { documentedOperations, type DocumentedOperation } from '../support/openapi.js';
import { bearer, startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Hostile JSON bodies on every documented operation that takes one: deep nesting (which
 * overflowed the stack of the body validation: a 500), prototype keys, bodies that are
 * not objects. Each is a 4xx with the contract's error body; the deep ones are refused
 * before anything walks them.
 */
const nestedArrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const nestedObjects = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

const TOO_DEEP: [string, string][] = [
  [`arrays ${MAX_BODY_DEPTH + 1} deep`, nestedArrays(MAX_BODY_DEPTH + 1)],
  ['arrays 20 000 deep', nestedArrays(20_000)],
  ['objects 5 000 deep', nestedObjects(5_000)],
  ['a deep value inside a field', `{"subscriber_id":"s","novel_id":"n","plan":${nestedArrays(3_000)}}`],
];

const MALFORMED: [string, string][] = [
  [`arrays ${MAX_BODY_DEPTH} deep (the limit itself: refused by validation instead)`, nestedArrays(MAX_BODY_DEPTH)],
  ['a __proto__ key', '{"__proto__":{"admin":true},"subscriber_id":"s"}'],
  ['a constructor.prototype key', '{"constructor":{"prototype":{"admin":true}}}'],
  ['an array', '[]'],
  ['a string', '"text"'],
  ['null', 'null'],
  ['a number', '1e400'],
  ['truncated JSON', '{"subscriber_id":'],
  ['a lone surrogate', '{"subscriber_id":"\\ud800"}'],
];

let t: TestApp;
let token: string;
let operations: DocumentedOperation[];

beforeAll(async () => {
  t = await startTestApp({ WEBHOOK_WORKER: 'false' });
  token = await t.token(await t.partner());
  operations = (await documentedOperations(t)).filter((operation) => operation.bodyTypes.includes('application/json'));
});
afterAll(() => t.close());

const send = (operation: DocumentedOperation, payload: string) =>
  t.inject({
    method: operation.method,
    // Any well-formed identifier: the body is refused before the route looks at it.
    url: operation.path.replace(/\{[^}]+\}/g, 'x1'),
    headers: { ...bearer(token), 'content-type': 'application/json' },
    payload,
  });

test('there are operations with JSON bodies to attack (the control case)', () => {
  expect(operations.length).toBeGreaterThanOrEqual(5);
});

it.each(TOO_DEEP)('a body of %s is refused with 400 on every operation', async (_, payload) => {
  for (const operation of operations) {
    const response = await send(operation, payload);
    expect({ operation: `${operation.method} ${operation.path}`, status: response.statusCode, body: response.json() }).toEqual({
      operation: `${operation.method} ${operation.path}`,
      status: 400,
      body: { error: 'invalid_request', error_description: expect.stringContaining(`deeper than ${MAX_BODY_DEPTH}`) },
    });
  }
});

it.each(MALFORMED)('a body of %s answers a 4xx contract error on every operation', async (_, payload) => {
  for (const operation of operations) {
    const response = await send(operation, payload);
    expect({ operation: `${operation.method} ${operation.path}`, status: response.statusCode >= 400 && response.statusCode < 500, body: response.json() }).toEqual({
      operation: `${operation.method} ${operation.path}`,
      status: true,
      body: { error: expect.any(String), error_description: expect.not.stringContaining('deeper than') },
    });
  }
});
