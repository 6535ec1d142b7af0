import { ShutdownSignal } from '../../src/shared/shutdown-signal.js';
import { bearer, startTestApp } from '../support/test-app.js';

/**
 * What happens between SIGTERM and exit (main.ts begins the shutdown, then closes): the
 * replica stops being ready and sends new requests elsewhere, waiting long polls answer at
 * once instead of holding the shutdown, and answers close their connections.
 */
it('answers waiting long polls at once, readiness and new requests 503, and closes connections', async () => {
  const t = await startTestApp();
  try {
    const token = await t.token(await t.partner({ scopes: ['platform:webhooks:manage'] }));
    const started = Date.now();
    const poll = t.inject({ method: 'GET', url: '/platform/v1/events?after=0&wait=20', headers: bearer(token) });
    await new Promise((resolve) => setTimeout(resolve, 300));
    t.app.get(ShutdownSignal).begin();
    const answered = await poll;
    expect({ status: answered.statusCode, data: answered.json().data, tookLessThan5s: Date.now() - started < 5_000 }).toEqual({
      status: 200,
      data: [],
      tookLessThan5s: true,
    });
    expect(answered.headers.connection).toBe('close');
    const ready = await t.inject({ method: 'GET', url: '/health/ready' });
    expect({ status: ready.statusCode, error: ready.json().error, retryAfter: ready.headers['retry-after'] }).toEqual({
      status: 503,
      error: 'temporarily_unavailable',
      retryAfter: '1',
    });
  } finally {
    await t.close();
  }
});

it('during the pre-stop delay serves every request as usual but readiness, which answers 503', async () => {
  const t = await startTestApp();
  try {
    const token = await t.token(await t.partner({ scopes: ['platform:webhooks:manage'] }));
    t.app.get(ShutdownSignal).leaveLoadBalancer();
    const ready = await t.inject({ method: 'GET', url: '/health/ready' });
    expect({ status: ready.statusCode, error: ready.json().error, retryAfter: ready.headers['retry-after'] }).toEqual({
      status: 503,
      error: 'temporarily_unavailable',
      retryAfter: '1',
    });
    expect((await t.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
    const events = await t.inject({ method: 'GET', url: '/platform/v1/events?after=0', headers: bearer(token) });
    expect({ status: events.statusCode, connection: events.headers.connection }).toEqual({ status: 200, connection: 'keep-alive' });
  } finally {
    await t.close();
  }
});
