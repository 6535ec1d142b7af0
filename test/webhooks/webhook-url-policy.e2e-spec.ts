import { HostResolver } from '../../src/modules/webhooks/domain/host-resolver.js';
import { bearer, startTestApp, type TestApp } from '../support/test-app.js';
import { partnerWithEndpoint, publishFinished, tenantOf, waitFor, WebhookReceiver } from './webhook-test-kit.js';

const ENDPOINTS = '/platform/v1/webhook-endpoints';
/** A name whose DNS never answers. */
const SILENT_HOST = 'silent.partner.example';

/**
 * The default settings outside production (NODE_ENV=test, WEBHOOK_ALLOW_INSECURE_URLS
 * unset): live endpoints get https to public addresses on 443 or 8443 only, sandbox ones
 * may use http and loopback; addresses are checked at registration and at every delivery.
 */
describe('webhook URL rules', () => {
  let app: TestApp;
  let receiver: WebhookReceiver;
  let token: string;
  /** What the DNS answers, per host, in place of the real resolver. */
  const dns = new Map<string, string[]>([['localhost', ['127.0.0.1']]]);

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    app = await startTestApp({ WEBHOOK_POLL_INTERVAL_MS: '50', WEBHOOK_TIMEOUT_MS: '1000' });
    expect(app.config.webhookAllowInsecureUrls).toBe(false);
    const resolver = app.app.get(HostResolver);
    resolver.addressesOf = async (host) => {
      if (host === SILENT_HOST) return new Promise<string[]>(() => undefined);
      const addresses = dns.get(host);
      if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      return addresses;
    };
    token = await app.token(await app.partner({ scopes: ['platform:webhooks:manage'] }));
  });

  afterAll(async () => {
    await app?.close();
    await receiver?.close();
  });

  const register = (url: string, bearerToken = token) =>
    app.inject({ method: 'POST', url: ENDPOINTS, headers: bearer(bearerToken), payload: { url, events: ['novel.finished'] } });

  const firstAttempt = async (ownToken: string, endpointId: string) => {
    const deliveries = async () => (await app.inject({ method: 'GET', url: `${ENDPOINTS}/${endpointId}/deliveries`, headers: bearer(ownToken) })).json().data;
    await waitFor(async () => (await deliveries())[0]?.attempts.length > 0, 'the first attempt');
    return (await deliveries())[0].attempts[0] as { status_code: number | null; error: string | null };
  };

  describe('live endpoints', () => {
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
      ['https://93.184.215.14:8080/hook', /port 443 or 8443/],
      ['https://93.184.215.14:22/hook', /port 443 or 8443/],
    ])('refuses %s with 400 invalid_request', async (url, description) => {
      const response = await register(url);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(description) });
    });

    it('refuses a host name that resolves to a private address, or to nothing', async () => {
      dns.set('intranet.partner.example', ['93.184.215.14', '192.168.10.5']);
      const privateHost = await register('https://intranet.partner.example/hook');
      expect(privateHost.statusCode).toBe(400);
      expect(privateHost.json().error_description).toBe('url must point to a host that resolves to public addresses only; intranet.partner.example does not.');

      // The same words whether the name resolves to a private address or to nothing: the
      // answer never tells what an internal name resolves to, or whether it exists.
      const unknownHost = await register('https://unknown.partner.example/hook');
      expect(unknownHost.statusCode).toBe(400);
      expect(unknownHost.json().error_description).toBe('url must point to a host that resolves to public addresses only; unknown.partner.example does not.');
    });

    it('refuses a host name whose DNS does not answer in time, as one that resolves to nothing', async () => {
      // Keyed, the registration waits inside its transaction (ADR 0158): the lookup must end.
      const silent = await app.inject({
        method: 'POST',
        url: ENDPOINTS,
        headers: { ...bearer(token), 'idempotency-key': 'silent-dns' },
        payload: { url: `https://${SILENT_HOST}/hook`, events: ['novel.finished'] },
      });
      expect(silent.statusCode).toBe(400);
      expect(silent.json().error_description).toBe(`url must point to a host that resolves to public addresses only; ${SILENT_HOST} does not.`);
    });

    it('accepts https to a public address on 443 or 8443', async () => {
      dns.set('hooks.partner.example', ['93.184.215.14']);
      expect((await register('https://hooks.partner.example/hook')).statusCode).toBe(201);
      expect((await register('https://hooks.partner.example:8443/hook')).statusCode).toBe(201);
      expect((await register('https://93.184.215.14/hook')).statusCode).toBe(201);
    });

    it('checks the address again when it delivers: a host that now resolves to loopback is refused (DNS rebinding)', async () => {
      const credential = await app.partner({ scopes: ['platform:webhooks:manage'] });
      const ownToken = await app.token(credential);
      dns.set('rebind.partner.example', ['93.184.215.14']);
      const created = await register('https://rebind.partner.example/hook', ownToken);
      expect(created.statusCode).toBe(201);
      dns.set('rebind.partner.example', ['127.0.0.1']);

      await publishFinished(app, tenantOf(credential));
      expect(await firstAttempt(ownToken, created.json().id)).toMatchObject({ status_code: null, error: 'connection_refused' });
    });
  });

  describe('sandbox endpoints', () => {
    it('accept http to loopback on any port, and deliver there', async () => {
      const { tenant, endpoint, token: ownToken } = await partnerWithEndpoint(app, receiver.url('/sandbox-ok'), 'sandbox');
      await publishFinished(app, tenant);
      expect(await firstAttempt(ownToken, endpoint.id)).toEqual(expect.objectContaining({ status_code: 200, error: null }));
      expect(receiver.at('/sandbox-ok')).toHaveLength(1);
      expect((await register(`http://localhost:${new URL(receiver.url()).port}/hook`, ownToken)).statusCode).toBe(201);
    });

    it.each([
      ['http://10.0.0.1/hook', /private address/],
      ['http://169.254.169.254/latest/meta-data', /link-local/],
      ['http://[fd00::1]:8080/hook', /unique-local/],
    ])('refuse %s with 400 invalid_request', async (url, description) => {
      const sandboxToken = await app.token(await app.partner({ scopes: ['platform:webhooks:manage'], environment: 'sandbox' }));
      const response = await register(url, sandboxToken);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual({ error: 'invalid_request', error_description: expect.stringMatching(description) });
    });
  });

  describe('the deliveries log', () => {
    /** The category logged for the first attempt to a sandbox endpoint at `url`. */
    async function categoryFor(url: string, beforePublish?: () => void): Promise<{ status_code: number | null; error: string | null }> {
      const { tenant, endpoint, token: ownToken } = await partnerWithEndpoint(app, url, 'sandbox');
      beforePublish?.();
      await publishFinished(app, tenant);
      return firstAttempt(ownToken, endpoint.id);
    }

    it('records a category for each kind of failure, never the raw error', async () => {
      receiver.answerWith((request) => (request.path === '/hang' ? 'hang' : request.path === '/status' ? { status: 500 } : { status: 200 }));
      const closed = await WebhookReceiver.start();
      const closedUrl = closed.url('/gone');
      await closed.close();
      const tls = await WebhookReceiver.start(true);
      dns.set('gone.partner.example', ['127.0.0.1']);
      try {
        const attempts = await Promise.all([
          categoryFor(receiver.url('/hang')),
          categoryFor(closedUrl),
          categoryFor(tls.url('/self-signed')),
          categoryFor(`http://gone.partner.example:${new URL(receiver.url()).port}/hook`, () => dns.delete('gone.partner.example')),
          categoryFor(receiver.url('/status')),
        ]);
        expect(attempts.map((attempt) => [attempt.status_code, attempt.error])).toEqual([
          [null, 'timeout'],
          [null, 'connection_refused'],
          [null, 'tls'],
          [null, 'dns'],
          [500, 'http_status'],
        ]);
      } finally {
        await tls.close();
      }
    });
  });
});

/** DECISIONS 27: in production no partner's receiver runs on the service's host. */
describe('sandbox webhook URLs in production', () => {
  let app: TestApp;
  let receiver: WebhookReceiver;
  const dns = new Map<string, string[]>();

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    app = await startTestApp({
      NODE_ENV: 'production',
      SERVER_SECRET: 'Zx8Qm2vL0aR7tK4pW9cE1yH6uJ3nB5dF-webhooks',
      PUBLIC_BASE_URL: 'https://api.example.com',
      WEBHOOK_POLL_INTERVAL_MS: '50',
      WEBHOOK_TIMEOUT_MS: '1000',
    });
    app.app.get(HostResolver).addressesOf = async (host) => dns.get(host) ?? [];
  });
  afterAll(async () => {
    await app?.close();
    await receiver?.close();
  });

  const registerSandbox = async (url: string) => {
    const credential = await app.partner({ scopes: ['platform:webhooks:manage'], environment: 'sandbox' });
    const token = await app.token(credential);
    return {
      credential,
      token,
      response: await app.inject({ method: 'POST', url: ENDPOINTS, headers: bearer(token), payload: { url, events: ['novel.finished'] } }),
    };
  };

  it.each(['http://127.0.0.1:15000/quitquitquit', 'http://localhost:15000/quitquitquit', 'http://[::1]:15000/quitquitquit'])(
    'refuses %s (a neighbour of the service, not a partner) with 400',
    async (url) => {
      const { response } = await registerSandbox(url);
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toBe('invalid_request');
    },
  );

  it('still accepts http on any port to a public address', async () => {
    dns.set('sandbox-receiver.partner.example', ['93.184.215.14']);
    expect((await registerSandbox('http://93.184.215.14:8080/hooks')).response.statusCode).toBe(201);
    expect((await registerSandbox('http://sandbox-receiver.partner.example:3001/hooks')).response.statusCode).toBe(201);
  });

  it('refuses at delivery a name that now resolves to loopback: logged as connection_refused, nothing sent', async () => {
    dns.set('moving.partner.example', ['93.184.215.14']);
    const { credential, token, response } = await registerSandbox(`http://moving.partner.example:${new URL(receiver.url()).port}/hook`);
    expect(response.statusCode).toBe(201);
    dns.set('moving.partner.example', ['127.0.0.1']);
    await publishFinished(app, tenantOf(credential));
    const deliveries = async () =>
      (await app.inject({ method: 'GET', url: `${ENDPOINTS}/${response.json().id}/deliveries`, headers: bearer(token) })).json().data;
    await waitFor(async () => (await deliveries())[0]?.attempts.length > 0, 'the first attempt');
    expect((await deliveries())[0].attempts[0]).toMatchObject({ status_code: null, error: 'connection_refused' });
    expect(receiver.at('/hook')).toHaveLength(0);
  });
});
