import { Writable } from 'node:stream';
import { SubscriberLogIds } from '../../src/shared/crypto/subscriber-log-ids.js';
import { SUBSCRIBER_ID_PIPES } from '../../src/shared/http/identifiers.js';
import { SCOPES, type IssuedCredential } from '../../src/modules/identity/index.js';
import { registeredRoutes } from '../support/routes.js';
import { bearer, startTestApp, type TestApp } from '../support/test-app.js';

/**
 * DECISIONS 29: the request log names a subscriber only by `sub_` + 16 hex characters of a
 * keyed hash under the caller's partner and environment, in paths and query strings alike.
 * The routes are found from the controllers, so a new route with a subscriber id in its
 * path is checked without a change here.
 */
const lines: Record<string, unknown>[] = [];
const capture = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString('utf8').split('\n')) if (line.startsWith('{')) lines.push(JSON.parse(line));
    done();
  },
});
let t: TestApp;
let live: IssuedCredential;
let sandbox: IssuedCredential;
let tokens: { live: string; sandbox: string };
let logIds: SubscriberLogIds;

beforeAll(async () => {
  t = await startTestApp({ LOG_LEVEL: 'info' }, undefined, capture);
  // Every scope, erasure's included (not in the default set): each route must answer, not refuse.
  live = await t.partner({ scopes: [...SCOPES] });
  sandbox = await t.partner({ environment: 'sandbox', scopes: [...SCOPES] });
  tokens = { live: await t.token(live), sandbox: await t.token(sandbox) };
  logIds = new SubscriberLogIds(t.config.serverSecret);
});
afterAll(() => t?.close());

let requestCount = 0;

/** Sends the request and returns the URL its log line shows. */
async function loggedUrl(method: string, url: string, headers: Record<string, string>): Promise<string> {
  const requestId = `log-id-${++requestCount}`;
  await t.inject({ method: method as 'GET', url, headers: { ...headers, 'x-request-id': requestId } });
  const line = lines.find((entry) => entry.reqId === requestId) as { req: { url: string } } | undefined;
  if (!line) throw new Error(`no log line for ${method} ${url}`);
  return line.req.url;
}

test('every route with a subscriber id in its path logs only its hash', async () => {
  const routes = registeredRoutes(t).filter((route) => route.parameters.some((parameter) => parameter.pipes.some((pipe) => SUBSCRIBER_ID_PIPES.has(pipe))));
  // The contract's routes at least: status, reading progress, playback, novels, test clocks.
  expect(routes.length).toBeGreaterThanOrEqual(15);
  for (const route of routes) {
    const sandboxRoute = route.path.startsWith('/sandbox/');
    const credential = sandboxRoute ? sandbox : live;
    const subscriberId = `probe.${requestCount}@sub`;
    const url = route.path.replace(/:(\w+)/g, (_, name: string) => {
      const parameter = route.parameters.find((candidate) => candidate.name === name);
      if (parameter?.pipes.some((pipe) => SUBSCRIBER_ID_PIPES.has(pipe))) return encodeURIComponent(subscriberId);
      return name === 'chapterNumber' ? '1' : 'the-heir';
    });
    const logged = await loggedUrl(route.method, url, bearer(sandboxRoute ? tokens.sandbox : tokens.live));
    const expected = logIds.of(credential.partner_id, credential.environment, subscriberId);
    expect({ route: `${route.method} ${route.path}`, logged }).toEqual({ route: `${route.method} ${route.path}`, logged: expect.stringContaining(expected) });
    expect(logged).not.toContain('probe');
  }
});

test('a subscriber_id query parameter is hashed on every route, encoded or not', async () => {
  for (const url of [
    '/v1/novels/the-heir/chapters?subscriber_id=kid-7',
    '/v1/novels/the-heir/chapters/1/content?foo=1&subscriber%5Fid=kid-7',
    '/v1/analytics/engagement?subscriber_id=kid%2D7',
  ]) {
    const logged = await loggedUrl('GET', url, bearer(tokens.live));
    expect(logged).toContain(logIds.of(live.partner_id, 'live', 'kid-7'));
    expect(logged).not.toMatch(/kid(-|%2D)7/);
  }
});

test('the same id at another partner or in the other environment has another log id', async () => {
  const other = await t.partner();
  const seen = new Set([
    await loggedUrl('GET', '/platform/v1/subscriber/same-id/status', bearer(tokens.live)),
    await loggedUrl('GET', '/platform/v1/subscriber/same-id/status', bearer(tokens.sandbox)),
    await loggedUrl('GET', '/platform/v1/subscriber/same-id/status', bearer(await t.token(other))),
  ]);
  expect(seen.size).toBe(3);
  for (const logged of seen) expect(logged).toMatch(/^\/platform\/v1\/subscriber\/sub_[0-9a-f]{16}\/status$/);
});

test('a path no route matches, and a request without a valid token, never show the id', async () => {
  // No route, so no authentication either: nothing says whose subscriber it is.
  expect(await loggedUrl('GET', '/v1/subscribers/lost-42/no-such-thing', bearer(tokens.live))).toBe('/v1/subscribers/[REDACTED]/no-such-thing');
  expect(await loggedUrl('GET', '/v1/subscriber/anon-42/reading-progress?subscriber_id=anon-42', {})).toBe(
    '/v1/subscriber/[REDACTED]/reading-progress?subscriber_id=[REDACTED]',
  );
});
