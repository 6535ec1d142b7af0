import { SCOPES } from '../../src/modules/identity/index.js';
import { documentedOperations, type DocumentedOperation } from '../support/openapi.js';
import { bearer, useTestApp } from '../support/test-app.js';
import { kidsServiceToken } from '../support/tokens.js';

/**
 * One rule on every documented operation (ADR 0011): a query parameter it does not
 * declare is refused with 400, whatever its name (prototype names included) and whether
 * or not the operation takes any parameter at all.
 */
const t = useTestApp({ WEBHOOK_WORKER: 'false' });
const NAMES = ['constructor', '__proto__', 'hasOwnProperty', 'toString', 'valueOf', 'positon_seconds'];

let operations: DocumentedOperation[];
const tokens: Record<'live' | 'sandbox' | 'kids', string> = { live: '', sandbox: '', kids: '' };

beforeAll(async () => {
  operations = await documentedOperations(t);
  // Every scope, erasure's included (not in the default set): the refusal must be the parameter's.
  tokens.live = await t.token(await t.partner({ scopes: [...SCOPES] }));
  const sandbox = await t.partner({ environment: 'sandbox', scopes: [...SCOPES] });
  tokens.sandbox = await t.token(sandbox);
  tokens.kids = await kidsServiceToken(t, await t.partner());
});

/** The token each operation is called with: the refusal must come from the query, not from access. */
const tokenFor = (operation: DocumentedOperation) =>
  operation.path.startsWith('/kids/')
    ? tokens.kids
    : operation.path.startsWith('/sandbox/') || operation.path.includes('/test-clocks')
      ? tokens.sandbox
      : tokens.live;

test('every documented operation is covered, those without query parameters too (the control case)', () => {
  expect(operations.length).toBeGreaterThanOrEqual(60);
  expect(operations.filter((operation) => operation.queryParameters.length === 0).length).toBeGreaterThanOrEqual(30);
});

it.each(NAMES)('an unknown query parameter named %s is refused with 400 on every operation', async (parameter) => {
  const answers = [];
  for (const operation of operations) {
    const response = await t.inject({
      method: operation.method,
      url: `${operation.path.replace(/\{[^}]+\}/g, 'x1')}?${encodeURIComponent(parameter)}=1`,
      headers: bearer(tokenFor(operation)),
    });
    answers.push({
      operation: `${operation.method} ${operation.path}`,
      status: response.statusCode,
      error: response.json().error,
      description: response.json().error_description,
    });
  }
  expect(answers.filter((answer) => answer.status !== 400 || !String(answer.description).startsWith(`Unknown query parameter: ${parameter} `))).toEqual([]);
});

describe('an operation that takes no body', () => {
  const withoutBody = () => operations.filter((operation) => operation.bodyTypes.length === 0);
  const send = (operation: DocumentedOperation, contentType: string, payload: string) =>
    t.inject({
      method: operation.method,
      url: operation.path.replace(/\{[^}]+\}/g, 'x1'),
      headers: { ...bearer(tokenFor(operation)), 'content-type': contentType },
      payload,
    });

  it.each([
    ['a JSON body with a field', 'application/json', '{"subscriber_id":"s"}', /takes no request body/],
    ['an empty JSON object', 'application/json', '{}', /takes no request body/],
    ['a JSON array', 'application/json', '[1]', /takes no request body/],
    ['a text body', 'text/plain', 'hello', /Unsupported Content-Type/],
  ])('refuses %s with 400 on every one', async (_, contentType, payload, description) => {
    expect(withoutBody().length).toBeGreaterThanOrEqual(30);
    const wrong = [];
    for (const operation of withoutBody()) {
      const response = await send(operation, contentType, payload);
      if (response.statusCode !== 400 || !description.test(response.body)) {
        wrong.push({ operation: `${operation.method} ${operation.path}`, status: response.statusCode, body: response.body.slice(0, 100) });
      }
    }
    expect(wrong).toEqual([]);
  });
});

test('the access check comes first: without a valid token an unknown parameter is still a 401', async () => {
  const anonymous = await t.inject({ method: 'GET', url: '/v1/novels?constructor=1' });
  expect(anonymous.statusCode).toBe(401);
  expect(anonymous.json().error).toBe('invalid_token');
  const refused = await t.inject({ method: 'GET', url: '/v1/novels?constructor=1', headers: bearer(tokens.live) });
  expect(refused.statusCode).toBe(400);
});
