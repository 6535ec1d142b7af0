import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { bearer, useTestApp } from '../support/test-app.js';
import { publishTestKey, type TestKeySigner } from '../support/tokens.js';

/**
 * DECISIONS 3: whatever its shape, a token that does not verify gets 401 `invalid_token`,
 * never a 5xx. Every case goes through the real HTTP stack, so both the Passport path (a
 * token not seen before) and the verified-token cache (keyed by signature) are exercised.
 */
const t = useTestApp();
let genuine: string;
let signWithTestKey: TestKeySigner;

beforeAll(async () => {
  genuine = await t.token(await t.partner());
  signWithTestKey = await publishTestKey(t);
});

const b64url = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const partsOf = (token: string) => token.split('.') as [string, string, string];

async function expectInvalidToken(token: string): Promise<void> {
  const response = await t.inject({ method: 'GET', url: '/v1/categories', headers: bearer(token) });
  expect({ token: token.slice(0, 120), status: response.statusCode, error: response.json().error }).toEqual({
    token: token.slice(0, 120),
    status: 401,
    error: 'invalid_token',
  });
}

it('accepts the genuine token (the control case)', async () => {
  expect((await t.inject({ method: 'GET', url: '/v1/categories', headers: bearer(genuine) })).statusCode).toBe(200);
});

it('refuses the genuine token with its signature cut short or padded, at every length from 0 to 200 bytes', async () => {
  const [header, payload, signature] = partsOf(genuine);
  for (let bytes = 0; bytes <= 200; bytes++) {
    await expectInvalidToken(`${header}.${payload}.${randomBytes(bytes).toString('base64url')}`);
  }
  for (let cut = 1; cut < signature.length; cut += 3) await expectInvalidToken(`${header}.${payload}.${signature.slice(0, -cut)}`);
  await expectInvalidToken(`${header}.${payload}.${signature}${signature}`);
});

it('refuses tokens whose parts are not base64url, not JSON, or not objects', async () => {
  const [header, payload, signature] = partsOf(genuine);
  const badParts = ['', '!!!', '%%%', 'a', '====', b64url('not json'), b64url('[1,2]'), b64url('null'), b64url('"text"'), b64url('42'), '\u00e9\u00e9'];
  for (const bad of badParts) {
    await expectInvalidToken(`${bad}.${payload}.${signature}`);
    await expectInvalidToken(`${header}.${bad}.${signature}`);
    await expectInvalidToken(`${header}.${payload}.${bad}`);
  }
  for (const shape of ['', '.', '..', '...', `${header}.${payload}`, `${header}.${payload}.${signature}.x`, 'x'.repeat(5000)]) {
    await expectInvalidToken(shape);
  }
});

it('refuses headers and claims of the wrong type, whether unsigned or signed by a published key', async () => {
  const [header, payload, signature] = partsOf(genuine);
  const genuineHeader = JSON.parse(Buffer.from(header, 'base64url').toString());
  const headerVariants = [
    { ...genuineHeader, kid: 42 },
    { ...genuineHeader, kid: { nested: true } },
    { ...genuineHeader, kid: 'k'.repeat(8000) },
    { ...genuineHeader, alg: ['ES256'] },
    { ...genuineHeader, alg: null },
    { ...genuineHeader, padding: 'p'.repeat(6000) },
  ];
  for (const variant of headerVariants) await expectInvalidToken(`${b64url(variant)}.${payload}.${signature}`);

  const claimVariants: Record<string, unknown>[] = [
    { iss: 42 },
    { iss: ['http://localhost:3000/platform/v1'] },
    { aud: { a: 1 } },
    { exp: 'tomorrow' },
    { exp: null },
    { exp: undefined },
    { nbf: 'soon' },
    { iat: {} },
    { scope: ['textapp:catalog:read'] },
    { client_id: 7 },
    { partner_id: null },
    { env: 'production' },
  ];
  for (const overrides of claimVariants) {
    await expectInvalidToken(await signWithTestKey(genuine, overrides));
    const genuineClaims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    await expectInvalidToken(`${header}.${b64url({ ...genuineClaims, ...overrides })}.${signature}`);
  }
});

it('refuses arbitrary mutations of a genuine token (property)', async () => {
  const mutation = fc.oneof(
    fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), text: fc.string({ minLength: 1, maxLength: 40 }) }),
    fc.record({ kind: fc.constant('cut' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 60 }) }),
    fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: fc.string({ minLength: 1, maxLength: 40 }) }),
  );
  await fc.assert(
    fc.asyncProperty(mutation, async (m) => {
      const at = m.at % genuine.length;
      const mutated =
        m.kind === 'cut'
          ? genuine.slice(0, at) + genuine.slice(at + m.length)
          : genuine.slice(0, at) + m.text + genuine.slice(m.kind === 'replace' ? at + m.text.length : at);
      // Header values cannot carry control characters; such a token never reaches the service.
      const sendable = mutated.replace(/[^\x21-\x7e]/g, 'A');
      fc.pre(sendable !== genuine && sendable.length > 0);
      await expectInvalidToken(sendable);
    }),
    { numRuns: 300 },
  );
});

it("refuses a token that carries a cached genuine token's signature with other claims", async () => {
  await t.inject({ method: 'GET', url: '/v1/categories', headers: bearer(genuine) });
  const [header, payload, signature] = partsOf(genuine);
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
  await expectInvalidToken(`${header}.${b64url({ ...claims, scope: `${claims.scope} extra` })}.${signature}`);
  await expectInvalidToken(`${b64url({ alg: 'ES256' })}.${payload}.${signature}`);
  // The cached token itself still works: a forgery does not evict it.
  expect((await t.inject({ method: 'GET', url: '/v1/categories', headers: bearer(genuine) })).statusCode).toBe(200);
});
