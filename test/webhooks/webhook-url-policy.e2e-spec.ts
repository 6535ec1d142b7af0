import { HostResolver } from '../../src/modules/webhooks/domain/host-resolver.js';
import { bearer, startTestApp, type TestApp } from '../support/test-app.js';
import { publishFinished, tenantOf, waitFor } from './webhook-test-kit.js';

const ENDPOINTS = '/platform/v1/webhook-endpoints';

/** Production settings: https to public addresses only, checked at registration and at every delivery. */
describe('webhook URL rules in production', () => {
  let app: TestApp;
  let token: string;
  let partner: Awaited<ReturnType<TestApp['partner']>>;
  /** What the DNS answers, per host, in place of the real resolver. */
  const dns = new Map<string, string[]>();

  beforeAll(async () => {
    app = await startTestApp({
      NODE_ENV: 'production',
      SERVER_SECRET: 'production-test-server-secret-0123456789',
      WEBHOOK_ALLOW_INSECURE_URLS: 'false',
      WEBHOOK_POLL_INTERVAL_MS: '50',
      WEBHOOK_TIMEOUT_MS: '1000',
    });
    const resolver = app.app.get(HostResolver);
    resolver.addressesOf = async (host) => {
      const addresses = dns.get(host);
      if (!addresses) throw new Error(`getaddrinfo ENOTFOUND ${host}`);
      return addresses;
    };
    partner = await app.partner({ scopes: ['platform:webhooks:manage'] });
    token = await app.token(partner);
  });

  afterAll(async () => {
    await app?.close();
  });

  const register = (url: string) =>
    app.inject({ method: 'POST', url: ENDPOINTS, headers: bearer(token), payload: { url, events: ['novel.finished'] } });

  it.each([
    ['http://127.0.0.1/hook', /https/],
    ['http://example.com/hook', /https/],
    ['https://127.0.0.1/hook', /127.0.0.1 is a loopback address/],
    ['https://10.0.0.1/hook', /10.0.0.1 is a private address/],
    ['https://localhost/hook', /localhost/],
    ['https://169.254.169.254/latest/meta-data', /link-local/],
    ['https://[::1]/hook', /loopback/],
    ['https://[::ffff:192.168.0.1]/hook', /private address \(embedded in IPv6\)/],
    ['https://100.64.1.1/hook', /carrier-grade NAT/],
  ])('refuses %s with 400 invalid_request', async (url, description) => {
    const response = await register(url);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(description) });
  });

  it('refuses a host name that resolves to a private address, or to nothing', async () => {
    dns.set('intranet.partner.example', ['93.184.215.14', '192.168.10.5']);
    const privateHost = await register('https://intranet.partner.example/hook');
    expect(privateHost.statusCode).toBe(400);
    expect(privateHost.json().error_description).toMatch(/intranet.partner.example resolves to 192.168.10.5, a private address/);

    const unknownHost = await register('https://unknown.partner.example/hook');
    expect(unknownHost.statusCode).toBe(400);
    expect(unknownHost.json().error_description).toMatch(/does not resolve/);
  });

  it('accepts https to a public address', async () => {
    dns.set('hooks.partner.example', ['93.184.215.14']);
    expect((await register('https://hooks.partner.example/hook')).statusCode).toBe(201);
    expect((await register('https://93.184.215.14/hook')).statusCode).toBe(201);
  });

  it('checks the address again when it delivers: a host that now resolves to loopback is refused (DNS rebinding)', async () => {
    const credential = await app.partner({ scopes: ['platform:webhooks:manage'] });
    const ownToken = await app.token(credential);
    dns.set('rebind.partner.example', ['93.184.215.14']);
    const created = await app.inject({
      method: 'POST',
      url: ENDPOINTS,
      headers: bearer(ownToken),
      payload: { url: 'https://rebind.partner.example/hook', events: ['novel.finished'] },
    });
    expect(created.statusCode).toBe(201);
    dns.set('rebind.partner.example', ['127.0.0.1']);

    await publishFinished(app, tenantOf(credential));
    const deliveries = async () =>
      (await app.inject({ method: 'GET', url: `${ENDPOINTS}/${created.json().id}/deliveries`, headers: bearer(ownToken) })).json().data;
    await waitFor(async () => (await deliveries())[0]?.attempts.length > 0, 'the first attempt');
    const [attempt] = (await deliveries())[0].attempts;
    expect(attempt).toMatchObject({ status_code: null, error: 'refused: rebind.partner.example resolves to 127.0.0.1, a loopback address' });
  });
});
