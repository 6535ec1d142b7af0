import { MAX_BODY_DEPTH } from '../../src/shared/http/input-limits.js';
import { documentedOperations, type DocumentedOperation } from '../support/openapi.js';
import { bearer, useTestApp } from '../support/test-app.js';

/**
 * Hostile input on every documented operation: deep nesting (which overflowed the stack
 * of the body validation: a 500), NUL characters (which PostgreSQL refuses in text: a
 * 500 wherever free text reached a query), prototype keys, bodies that are not objects.
 * Each answers a 4xx with the contract's error body; deep and NUL-bearing input is refused
 * before anything walks it or queries with it.
 */
const nestedArrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const nestedObjects = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

const REFUSED_UP_FRONT: [string, string, RegExp][] = [
  [`arrays ${MAX_BODY_DEPTH + 1} deep`, nestedArrays(MAX_BODY_DEPTH + 1), /deeper than 32/],
  ['arrays 20 000 deep', nestedArrays(20_000), /deeper than 32/],
  ['objects 5 000 deep', nestedObjects(5_000), /deeper than 32/],
  ['a deep value inside a field', `{"subscriber_id":"s","novel_id":"n","plan":${nestedArrays(3_000)}}`, /deeper than 32/],
  ['a NUL character in a field', '{"subscriber_id":"s","plan":"a\\u0000b","choice_id":"a\\u0000b","url":"http://x/\\u0000"}', /^body\.\w+ contains a NUL/],
  ['a NUL character in an array', '{"events":["novel.finished","\\u0000"]}', /^body\.events\[1\] contains a NUL/],
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

const t = useTestApp({ WEBHOOK_WORKER: 'false' });
let token: string;
let operations: DocumentedOperation[];

beforeAll(async () => {
  token = await t.token(await t.partner());
  operations = await documentedOperations(t);
});

const withJsonBody = () => operations.filter((operation) => operation.bodyTypes.includes('application/json'));
const name = (operation: DocumentedOperation) => `${operation.method} ${operation.path}`;

const send = (operation: DocumentedOperation, options: { payload?: string; query?: string } = {}) =>
  t.inject({
    method: operation.method,
    // Any well-formed identifier: the input is refused before the route looks at it.
    url: operation.path.replace(/\{[^}]+\}/g, 'x1') + (options.query ? `?${options.query}` : ''),
    headers: { ...bearer(token), ...(options.payload !== undefined && { 'content-type': 'application/json' }) },
    payload: options.payload,
  });

test('there are operations with JSON bodies and with query parameters to attack (the control case)', () => {
  expect(withJsonBody().length).toBeGreaterThanOrEqual(5);
  expect(operations.filter((operation) => operation.queryParameters.length > 0).length).toBeGreaterThanOrEqual(5);
});

it.each(REFUSED_UP_FRONT)('a body with %s is refused with 400 on every operation', async (_, payload, description) => {
  for (const operation of withJsonBody()) {
    const response = await send(operation, { payload });
    expect({ operation: name(operation), status: response.statusCode, body: response.json() }).toEqual({
      operation: name(operation),
      status: 400,
      body: { error: 'invalid_request', error_description: expect.stringMatching(description) },
    });
  }
});

it.each(MALFORMED)('a body of %s answers a 4xx contract error on every operation', async (_, payload) => {
  for (const operation of withJsonBody()) {
    const response = await send(operation, { payload });
    expect({ operation: name(operation), clientError: response.statusCode >= 400 && response.statusCode < 500, body: response.json() }).toEqual({
      operation: name(operation),
      clientError: true,
      body: { error: expect.any(String), error_description: expect.not.stringContaining('deeper than') },
    });
  }
});

test('a NUL character in any documented query parameter is refused with 400 naming it', async () => {
  for (const operation of operations) {
    for (const parameter of operation.queryParameters) {
      const response = await send(operation, { query: `${parameter}=a%00b` });
      expect({ operation: name(operation), status: response.statusCode, body: response.json() }).toEqual({
        operation: name(operation),
        status: 400,
        body: { error: 'invalid_request', error_description: `query.${parameter} contains a NUL character (U+0000), which no field accepts.` },
      });
    }
  }
});
