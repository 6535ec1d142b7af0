import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../src/config/app-config.js';

const dataDir = () => mkdtempSync(join(tmpdir(), 'prl-config-'));

describe('loadConfig', () => {
  it('has the defaults of DECISIONS 21', () => {
    const config = loadConfig({ DATA_DIR: dataDir() });
    expect(config).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      publicBaseUrl: 'http://localhost:3000',
      databaseUrl: undefined,
      storage: 'local',
      streamUrlTtlSeconds: 1200,
      webhookRetryScheduleSeconds: [0, 5, 300, 1800, 7200, 18000, 36000, 36000],
      webhookAllowInsecureUrls: false,
      rateLimitRps: 50,
      rateLimitBurst: 100,
      httpHeadersTimeoutMs: 10_000,
      nodeEnv: 'development',
      logLevel: 'info',
      platformJwksUrl: undefined,
      activityRetentionDays: 400,
      streamAuditRetentionDays: 400,
    });
    expect([...config.services]).toEqual(['platform', 'reading', 'sandbox', 'kids']);
  });

  it('creates a server secret on first start outside production and reuses it', () => {
    const dir = dataDir();
    const first = loadConfig({ DATA_DIR: dir }).serverSecret;
    expect(loadConfig({ DATA_DIR: dir }).serverSecret).toEqual(first);
    expect(readFileSync(join(dir, 'server-secret'), 'utf8').length).toBeGreaterThanOrEqual(32);
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ SERVICES: 'platform,chat' }, 'SERVICES'],
    [{ STORAGE: 'ftp' }, 'STORAGE'],
    [{ STORAGE: 's3' }, 'S3_BUCKET'],
    [{ STREAM_URL_TTL_SECONDS: '0' }, 'STREAM_URL_TTL_SECONDS'],
    [{ WEBHOOK_RETRY_SCHEDULE: '0,5,soon' }, 'WEBHOOK_RETRY_SCHEDULE'],
    [{ WEBHOOK_ALLOW_INSECURE_URLS: 'maybe' }, 'WEBHOOK_ALLOW_INSECURE_URLS'],
    [{ PUBLIC_BASE_URL: 'localhost' }, 'PUBLIC_BASE_URL'],
    [{ PLATFORM_JWKS_URL: 'platform/v1/jwks' }, 'PLATFORM_JWKS_URL'],
    [{ PLATFORM_JWKS_URL: 'ftp://platform.example/platform/v1/jwks' }, 'PLATFORM_JWKS_URL'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ HTTP_HEADERS_TIMEOUT_MS: '50' }, 'HTTP_HEADERS_TIMEOUT_MS'],
    [{ HTTP_HEADERS_TIMEOUT_MS: '60000' }, 'HTTP_HEADERS_TIMEOUT_MS'],
    [{ NODE_ENV: 'production' }, 'SERVER_SECRET'],
    [{ SERVER_SECRET: 'short' }, 'SERVER_SECRET'],
    [{ ACTIVITY_RETENTION_DAYS: '0' }, 'ACTIVITY_RETENTION_DAYS'],
    [{ STREAM_AUDIT_RETENTION_DAYS: 'a year' }, 'STREAM_AUDIT_RETENTION_DAYS'],
  ])('refuses %j naming %s', (env, variable) => {
    expect(() => loadConfig({ DATA_DIR: dataDir(), ...env })).toThrow(ConfigError);
    expect(() => loadConfig({ DATA_DIR: dataDir(), ...env })).toThrow(variable);
  });

  it('reads the URL of the platform key set for a process deployed apart from the platform', () => {
    const url = 'https://api.example.com/platform/v1/jwks';
    expect(loadConfig({ DATA_DIR: dataDir(), PLATFORM_JWKS_URL: url }).platformJwksUrl).toBe(url);
  });

  it('is secure by default in production: no insecure webhook URLs', () => {
    const config = loadConfig({ DATA_DIR: dataDir(), NODE_ENV: 'production', SERVER_SECRET: 's'.repeat(32) });
    expect(config.webhookAllowInsecureUrls).toBe(false);
  });
});
