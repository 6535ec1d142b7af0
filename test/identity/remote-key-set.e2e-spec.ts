import { createServer, type Server } from 'node:http';
import { generateKeyPairSync } from 'node:crypto';
import { exportJWK } from 'jose';
import { RemoteKeySet } from '../../src/modules/identity/infrastructure/remote-key-set.js';
import { DomainError } from '../../src/shared/errors/domain-error.js';

/**
 * The key set a process apart from the platform verifies with (DECISIONS 3), against a
 * real HTTP server whose keys and answers the test controls, on a clock it moves.
 */
interface KeyServer {
  url: string;
  fetches: number;
  kids: string[];
  cacheControl: string;
  down: boolean;
  close(): void;
}

let server: KeyServer;
let clock: number;
const now = () => clock;

async function jwkOf(kid: string) {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
}

const published = new Map<string, object>();

beforeAll(async () => {
  for (const kid of ['k1', 'k2', 'k3']) published.set(kid, await jwkOf(kid));
  const state = { fetches: 0, kids: ['k1'], cacheControl: 'public, max-age=300', down: false } as KeyServer;
  const http: Server = createServer((_, response) => {
    state.fetches++;
    if (state.down) return response.writeHead(502).end();
    response.writeHead(200, { 'content-type': 'application/json', 'cache-control': state.cacheControl });
    response.end(
      JSON.stringify({
        keys: [
          ...state.kids.map((kid) => published.get(kid)),
          { kid: 'rsa', kty: 'RSA', n: 'x', e: 'AQAB' },
          { kid: 'broken', kty: 'EC', crv: 'P-256', x: '!', y: '!' },
        ],
      }),
    );
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  server = Object.assign(state, {
    url: `http://127.0.0.1:${(http.address() as { port: number }).port}/jwks`,
    close: () => (http.close(), http.closeAllConnections()),
  });
});
afterAll(() => server.close());

beforeEach(() => {
  clock = 1_000_000;
  Object.assign(server, { fetches: 0, kids: ['k1'], cacheControl: 'public, max-age=300', down: false });
});

it('answers a listed kid from one fetch, and ignores what cannot verify ES256 tokens', async () => {
  const keys = new RemoteKeySet(server.url, { now });
  for (let i = 0; i < 5; i++) expect((await keys.key('k1'))?.asymmetricKeyType).toBe('ec');
  expect(await keys.key('rsa')).toBeUndefined();
  expect(await keys.key('broken')).toBeUndefined();
  expect(server.fetches).toBe(1);
});

it('lets made-up kids cause at most one refetch every 30 s, and never evicts a genuine key', async () => {
  const keys = new RemoteKeySet(server.url, { now });
  await keys.key('k1');
  server.fetches = 0;
  for (let second = 0; second < 120; second++) {
    clock += 1000;
    const forged = await Promise.all(Array.from({ length: 10 }, (_, i) => keys.key(`forged-${second}-${i}`)));
    expect(forged.every((key) => key === undefined)).toBe(true);
    expect(await keys.key('k1')).toBeDefined();
  }
  // 120 s: one refetch per 30 s of made-up kids, plus the refresh the 300 s max-age does not yet need.
  expect(server.fetches).toBeLessThanOrEqual(4);
});

it('picks up a genuine new kid with one refetch once the interval since the last fetch has passed', async () => {
  const keys = new RemoteKeySet(server.url, { now });
  await keys.key('k1');
  server.kids = ['k1', 'k2'];
  clock += 10_000;
  expect(await keys.key('k2')).toBeUndefined(); // within 30 s of the last fetch
  clock += 20_000;
  expect(await keys.key('k2')).toBeDefined();
  expect(server.fetches).toBe(2);
});

it('refetches when the max-age the platform sent has passed, and drops a key the later set drops', async () => {
  server.cacheControl = 'public, max-age=60';
  const keys = new RemoteKeySet(server.url, { now });
  await keys.key('k1');
  server.kids = ['k3'];
  clock += 59_000;
  expect(await keys.key('k1')).toBeDefined();
  clock += 1_000;
  expect(await keys.key('k1')).toBeUndefined();
  expect(await keys.key('k3')).toBeDefined();
  expect(server.fetches).toBe(2);
});

it('never trusts a max-age longer than the platform publishes', async () => {
  server.cacheControl = 'max-age=86400';
  const keys = new RemoteKeySet(server.url, { now });
  await keys.key('k1');
  clock += 300_000;
  await keys.key('k1');
  expect(server.fetches).toBe(2);
});

it('answers 503 while no set was ever fetched, then keeps the last set through an outage', async () => {
  server.down = true;
  const keys = new RemoteKeySet(server.url, { now });
  const refusal = await keys.key('k1').catch((error: unknown) => error);
  expect(refusal).toBeInstanceOf(DomainError);
  expect((refusal as DomainError).kind).toBe('temporarily_unavailable');
  server.down = false;
  expect(await keys.key('k1')).toBeDefined();
  server.down = true;
  server.fetches = 0;
  clock += 301_000;
  expect(await keys.key('k1')).toBeDefined();
  expect(await keys.key('k1')).toBeDefined();
  expect(server.fetches).toBe(1); // retried after the interval, not per request
  clock += 30_000;
  server.down = false;
  server.kids = ['k2'];
  expect(await keys.key('k1')).toBeUndefined();
});

it('shares one fetch between concurrent callers', async () => {
  const keys = new RemoteKeySet(server.url, { now });
  await Promise.all(Array.from({ length: 50 }, () => keys.key('k1')));
  expect(server.fetches).toBe(1);
});
