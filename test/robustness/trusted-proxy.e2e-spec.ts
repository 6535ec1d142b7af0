import httpProxy from 'http-proxy';
import { request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IssuedCredential } from '../../src/modules/identity/index.js';
import { startTestApp, useTestApp, type TestApp } from '../support/test-app.js';

/**
 * The per-address budgets key on the address the last trusted proxy saw, whatever a
 * client writes into X-Forwarded-For (docs/limits.md, "Source addresses").
 */
const t = useTestApp();

const TOKEN = '/platform/v1/oauth2/token';
const BILLING = '/platform/v1/billing-usage?product=textapp';

const tokenForm = (credential: IssuedCredential, secret: string) =>
  new URLSearchParams({ grant_type: 'client_credentials', client_id: credential.client_id, client_secret: secret }).toString();

describe('behind a real proxy, with forged X-Forwarded-For', () => {
  let service: TestApp;
  let proxy: Server;
  let proxyPort: number;
  let credential: IssuedCredential;

  beforeAll(async () => {
    service = await startTestApp(
      { TRUST_PROXY: '127.0.0.1', TOKEN_FAILURES_PER_MINUTE: '3', UNAUTHENTICATED_RPS: '1', UNAUTHENTICATED_BURST: '5' },
      t.databaseUrl,
    );
    await service.app.listen({ port: 0, host: '127.0.0.1' });
    const target = `http://127.0.0.1:${(service.app.getHttpServer().address() as AddressInfo).port}`;
    // The proxy appends the address it saw to the X-Forwarded-For it was sent, as load
    // balancers do, and reaches the service from 127.0.0.1, the one trusted address.
    const forwarder = httpProxy.createProxyServer({ target, xfwd: true, localAddress: '127.0.0.1' });
    proxy = (await import('node:http')).createServer((req, res) => forwarder.web(req, res));
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    proxyPort = (proxy.address() as AddressInfo).port;
    credential = await service.partner();
  });
  afterAll(async () => {
    await new Promise((resolve) => proxy?.close(resolve));
    await service?.close();
  });

  /** A request through the proxy from the client address `from` (any of 127.0.0.0/8 is this host). */
  function viaProxy(from: string, forwardedFor: string, options: { method: string; path: string; body?: string }): Promise<number> {
    return new Promise((resolve, reject) => {
      const outgoing = request(
        {
          host: '127.0.0.1',
          port: proxyPort,
          localAddress: from,
          method: options.method,
          path: options.path,
          headers: {
            'x-forwarded-for': forwardedFor,
            ...(options.body ? { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(options.body) } : {}),
          },
        },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
        },
      );
      outgoing.on('error', reject);
      outgoing.end(options.body);
    });
  }

  it('counts failed token requests against the real client, not the names it writes', async () => {
    const wrong = { method: 'POST', path: TOKEN, body: tokenForm(credential, 'wrong') };
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push(await viaProxy('127.0.0.21', `198.51.100.${i}, 203.0.113.${i}`, wrong));
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429]);
    // The owner, at another address behind the same proxy, is not locked out.
    expect(await viaProxy('127.0.0.22', '127.0.0.21', { method: 'POST', path: TOKEN, body: tokenForm(credential, credential.client_secret) })).toBe(200);
  });

  it('counts unauthenticated requests against the real client', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push(await viaProxy('127.0.0.23', `192.0.2.${i}`, { method: 'GET', path: BILLING }));
    // The burst of 5, then refusals (the bucket refills one a second meanwhile).
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(3);
    expect(await viaProxy('127.0.0.24', '192.0.2.1', { method: 'GET', path: BILLING })).toBe(401);
  });
});

describe('a hop count above the real number of proxies, and TRUST_PROXY=true', () => {
  // One real proxy at 10.0.5.1: it appends the public address of the client it saw
  // (203.0.113.50); everything to the left of that was written by the client.
  const fromClient = (app: TestApp, clientId: string, forged: string) =>
    app.inject({
      method: 'POST',
      url: TOKEN,
      remoteAddress: '10.0.5.1',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': `${forged}, 203.0.113.50` },
      payload: `grant_type=client_credentials&client_id=${clientId}&client_secret=guess`,
    });

  it.each([['3'], ['true']])('TRUST_PROXY=%s never takes an entry the client wrote', async (trustProxy) => {
    const app = await startTestApp({ TRUST_PROXY: trustProxy, TOKEN_FAILURES_PER_MINUTE: '3' }, t.databaseUrl);
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await fromClient(app, `live_nobody${trustProxy}`, `198.51.100.${i}, 192.0.2.${i}`)).statusCode);
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
    } finally {
      await app.close();
    }
  });
});
