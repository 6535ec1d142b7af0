import { createServer, type Server } from 'node:http';
import { decodeProtectedHeader } from 'jose';
import { buildOnce, startService, type ServiceProcess } from '../support/processes.js';
import { bearer, serviceEnvFor, startTestApp, type TestApp } from '../support/test-app.js';
import { algNoneToken, foreignEs256Token, publishTestKey } from '../support/tokens.js';

/**
 * A reading process deployed apart from the platform (SERVICES=reading, PLATFORM_JWKS_URL)
 * verifies platform tokens with the platform's published key set, not with the database.
 * The key set reaches it through a relay in front of the platform's real /jwks, which
 * counts fetches and can hide a key that the database still holds.
 */
interface JwksRelay {
  url: string;
  fetches: number;
  hidden: Set<string>;
  close(): void;
}

let platform: TestApp;
let relay: JwksRelay;
let reading: ServiceProcess & { origin: string };

beforeAll(async () => {
  buildOnce();
  platform = await startTestApp();
  relay = await startJwksRelay(platform);
  reading = await startService(serviceEnvFor(platform, { SERVICES: 'reading', PLATFORM_JWKS_URL: relay.url }));
}, 180_000);

afterAll(async () => {
  reading?.child.kill();
  await reading?.exit();
  relay?.close();
  await platform?.close();
});

async function startJwksRelay(t: TestApp): Promise<JwksRelay> {
  const relay = { fetches: 0, hidden: new Set<string>() } as JwksRelay;
  const server: Server = createServer(async (_, response) => {
    relay.fetches++;
    const jwks = await t.inject({ method: 'GET', url: '/platform/v1/jwks' });
    const keys = jwks.json().keys.filter((key: { kid: string }) => !relay.hidden.has(key.kid));
    response.writeHead(200, { 'content-type': 'application/json', 'cache-control': String(jwks.headers['cache-control']) });
    response.end(JSON.stringify({ keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return Object.assign(relay, { url: `http://127.0.0.1:${address.port}/platform/v1/jwks`, close: () => (server.close(), server.closeAllConnections()) });
}

const categories = (token: string) => fetch(`${reading.origin}/v1/categories`, { headers: bearer(token) });

async function expectInvalidToken(response: Response) {
  expect({ status: response.status, body: await response.json(), challenge: response.headers.get('www-authenticate') }).toEqual({
    status: 401,
    body: { error: 'invalid_token', error_description: expect.any(String) },
    challenge: expect.stringMatching(/^Bearer error="invalid_token"/),
  });
}

it('keeps accepting genuine tokens on a fresh replica after a flood of made-up kids, with at most one refetch', async () => {
  const genuine = await platform.token(await platform.partner());
  for (let i = 0; i < 30; i++) await expectInvalidToken(await categories(await foreignEs256Token(genuine, `forged-${i}`)));
  expect(relay.fetches).toBe(1); // the first fetch of this replica; the made-up kids caused no other
  expect((await categories(genuine)).status).toBe(200);
  expect((await categories(await platform.token(await platform.partner()))).status).toBe(200);
  expect(relay.fetches).toBe(1);
});

it('refuses a token signed by a key the URL does not publish, even one the database holds', async () => {
  const genuine = await platform.token(await platform.partner());
  const sign = await publishTestKey(platform);
  const unpublished = await sign(genuine);
  relay.hidden.add(decodeProtectedHeader(unpublished).kid!);
  // The control case: the platform itself, verifying from the database, accepts it.
  expect((await platform.inject({ method: 'GET', url: '/v1/categories', headers: bearer(unpublished) })).statusCode).toBe(200);
  await expectInvalidToken(await categories(unpublished));
  await expectInvalidToken(await categories(await foreignEs256Token(genuine, 'foreign')));
  await expectInvalidToken(await categories(await foreignEs256Token(genuine)));
  await expectInvalidToken(await categories(algNoneToken(genuine)));
});

it('answers 503 while it has never fetched the key set, since the token may well be good', async () => {
  const genuine = await platform.token(await platform.partner());
  const unreachable = await startService(serviceEnvFor(platform, { SERVICES: 'reading', PLATFORM_JWKS_URL: 'http://127.0.0.1:9/platform/v1/jwks' }));
  try {
    const response = await fetch(`${unreachable.origin}/v1/categories`, { headers: bearer(genuine) });
    expect({ status: response.status, body: await response.json(), retryAfter: response.headers.get('retry-after') }).toEqual({
      status: 503,
      body: { error: 'temporarily_unavailable', error_description: expect.any(String) },
      retryAfter: expect.any(String),
    });
  } finally {
    unreachable.child.kill();
    await unreachable.exit();
  }
});
