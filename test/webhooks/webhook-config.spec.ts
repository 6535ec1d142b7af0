import { ConfigError, loadConfig } from '../../src/config/app-config.js';

const base = { SERVER_SECRET: 'config-test-server-secret-0123456789', PUBLIC_BASE_URL: 'https://api.example.com' };

describe('webhook configuration', () => {
  it('has production-grade defaults', () => {
    const config = loadConfig(base);
    expect(config).toMatchObject({
      webhookRetryScheduleSeconds: [0, 5, 300, 1800, 7200, 18000, 36000, 36000],
      webhookAllowInsecureUrls: false,
      webhookConcurrency: 64,
      webhookPartnerConcurrency: 4,
      webhookWorkerEnabled: true,
      webhookPollIntervalMs: 250,
      webhookTimeoutMs: 10_000,
    });
    for (const NODE_ENV of ['production', 'development', 'test']) expect(loadConfig({ ...base, NODE_ENV }).webhookAllowInsecureUrls).toBe(false);
    expect(loadConfig({ ...base, WEBHOOK_ALLOW_INSECURE_URLS: 'true' }).webhookAllowInsecureUrls).toBe(true);
  });

  it('reads the worker settings', () => {
    const config = loadConfig({
      ...base,
      WEBHOOK_WORKER: 'false',
      WEBHOOK_POLL_INTERVAL_MS: '50',
      WEBHOOK_TIMEOUT_MS: '1500',
      WEBHOOK_RETRY_SCHEDULE: '0,0.2,0.4',
      WEBHOOK_CONCURRENCY: '8',
      WEBHOOK_PARTNER_CONCURRENCY: '2',
    });
    expect(config).toMatchObject({
      webhookWorkerEnabled: false,
      webhookPollIntervalMs: 50,
      webhookTimeoutMs: 1500,
      webhookRetryScheduleSeconds: [0, 0.2, 0.4],
      webhookConcurrency: 8,
      webhookPartnerConcurrency: 2,
    });
  });

  it.each([
    ['WEBHOOK_WORKER', 'sometimes'],
    ['WEBHOOK_POLL_INTERVAL_MS', '5'],
    ['WEBHOOK_POLL_INTERVAL_MS', 'fast'],
    ['WEBHOOK_TIMEOUT_MS', '0'],
    ['WEBHOOK_TIMEOUT_MS', '600000'],
    ['WEBHOOK_RETRY_SCHEDULE', '0,,5'],
    ['WEBHOOK_CONCURRENCY', '0'],
    ['WEBHOOK_PARTNER_CONCURRENCY', 'many'],
    ['WEBHOOK_ALLOW_INSECURE_URLS', 'maybe'],
  ])('refuses %s=%s, naming the variable', (name, value) => {
    expect(() => loadConfig({ ...base, [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, [name]: value })).toThrow(name);
  });
});
