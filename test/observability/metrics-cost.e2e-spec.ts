import { jest } from '@jest/globals';
import { DataSource } from 'typeorm';
import { startTestApp, useTestApp, type TestApp } from '../support/test-app.js';

/**
 * DECISIONS 21 and 27: /metrics is never on the partner-facing port in production, and a
 * scrape costs no database work that grows with the data; its figures are true.
 */
const t = useTestApp();

const scrape = async () => (await t.inject({ method: 'GET', url: '/metrics' })).body;
const gauge = (body: string, series: string) => Number(new RegExp(`^${series.replace(/[{}"]/g, '\\$&')} (\\S+)$`, 'm').exec(body)?.[1]);

it('reads the webhook backlog at most once however often it is scraped', async () => {
  const logged = jest.spyOn(t.app.get(DataSource).logger, 'logQuery');
  try {
    for (let i = 0; i < 20; i++) await scrape();
    const backlogReads = logged.mock.calls.filter(([sql]) => /FROM webhook_delivery_counts/.test(sql));
    expect(backlogReads).toHaveLength(1);
  } finally {
    logged.mockRestore();
  }
});

it('reports no request waiting for a connection on an idle service', async () => {
  for (let i = 0; i < 5; i++) {
    const body = await scrape();
    expect(gauge(body, 'db_pool_connections{state="waiting"}')).toBe(0);
  }
});

describe('in production', () => {
  let production: TestApp;
  beforeAll(async () => {
    production = await startTestApp({
      NODE_ENV: 'production',
      SERVER_SECRET: 'Zx8Qm2vL0aR7tK4pW9cE1yH6uJ3nB5dF-metrics',
      PUBLIC_BASE_URL: 'https://api.example.com',
    });
  });
  afterAll(() => production?.close());

  it('answers 404 for /metrics on the service port when METRICS_PORT is unset', async () => {
    const response = await production.inject({ method: 'GET', url: '/metrics' });
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 404,
      body: { error: 'not_found', error_description: expect.any(String) },
    });
  });
});
