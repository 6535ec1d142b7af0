import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, FILE_VARIABLES, loadConfig, MIN_PRODUCTION_KEY_ACTIVATION_DELAY_SECONDS, secretWeakness } from '../../src/config/app-config.js';
import { locateDatabase } from '../../src/database/database-location.js';
import { UNKNOWN_KID_REFETCH_INTERVAL_MS } from '../../src/modules/identity/infrastructure/remote-key-set.js';

const dataDir = () => mkdtempSync(join(tmpdir(), 'prl-config-'));

describe('loadConfig', () => {
  it('has the defaults of DECISIONS 21', () => {
    const config = loadConfig({ DATA_DIR: dataDir() });
    expect(config).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      publicBaseUrl: 'http://localhost:3000',
      databaseUrl: undefined,
      databasePoolSize: 20,
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

  it('.env.example names only files that exist', () => {
    const example = readFileSync('.env.example', 'utf8');
    const named = [...example.matchAll(/\b(?:docs\/[\w./-]+\.md|[A-Z]+\.md)\b/g)].map((match) => match[0]);
    expect(named.length).toBeGreaterThan(2);
    expect(named.filter((path) => !existsSync(path))).toEqual([]);
  });

  it('lists in .env.example every variable the configuration reads', () => {
    const example = readFileSync('.env.example', 'utf8');
    const source = ['src/config/app-config.ts', 'src/config/env-file.ts'].map((file) => readFileSync(file, 'utf8')).join('\n');
    const read = [...source.matchAll(/env\.([A-Z][A-Z0-9_]+)|\(env, '([A-Z][A-Z0-9_]+)'/g)].map((match) => match[1] ?? match[2]);
    const all = [...new Set([...read, ...FILE_VARIABLES.map((name) => `${name}_FILE`)])];
    expect(all.length).toBeGreaterThan(30);
    expect(all.filter((name) => !new RegExp(`^#? ?${name}=`, 'm').test(example))).toEqual([]);
  });

  it('reads SERVER_SECRET, SERVER_SECRET_PREVIOUS, DATABASE_URL and DATABASE_READ_URL from the files their _FILE variables name', () => {
    const dir = dataDir();
    const file = (name: string, content: string) => {
      writeFileSync(join(dir, name), content);
      return join(dir, name);
    };
    const config = loadConfig({
      DATA_DIR: dir,
      SERVER_SECRET_FILE: file('secret', 'Zx8Qm2vL0aR7tK4pW9cE1yH6uJ3nB5dF-file\n'),
      SERVER_SECRET_PREVIOUS_FILE: file('previous', 'Qm2vL0aR7tK4pW9cE1yH6uJ3nB5dFZx8-file\n'),
      DATABASE_URL_FILE: file('url', 'postgres://app:pw@db.internal:5432/partner_api\n'),
      DATABASE_READ_URL_FILE: file('read-url', 'postgres://app:pw@standby.internal:5432/partner_api'),
    });
    expect(config.serverSecret.toString()).toBe('Zx8Qm2vL0aR7tK4pW9cE1yH6uJ3nB5dF-file');
    expect(config.serverSecretPrevious?.toString()).toBe('Qm2vL0aR7tK4pW9cE1yH6uJ3nB5dFZx8-file');
    expect(config.databaseUrl).toBe('postgres://app:pw@db.internal:5432/partner_api');
    expect(config.databaseReadUrl).toBe('postgres://app:pw@standby.internal:5432/partner_api');
  });

  it.each([
    [{ SERVER_SECRET: 'x'.repeat(40), SERVER_SECRET_FILE: '/etc/hostname' }, 'Set SERVER_SECRET or SERVER_SECRET_FILE, not both'],
    [{ DATABASE_URL_FILE: '/nowhere/database-url' }, 'DATABASE_URL_FILE names /nowhere/database-url, which cannot be read (ENOENT)'],
  ])('refuses %j in one message naming the variable', (env, message) => {
    expect(() => loadConfig({ DATA_DIR: dataDir(), ...env })).toThrow(new ConfigError(message));
  });

  it('reads the pre-stop delay, none by default', () => {
    expect(loadConfig({ DATA_DIR: dataDir() }).shutdownDelaySeconds).toBe(0);
    expect(loadConfig({ DATA_DIR: dataDir(), SHUTDOWN_DELAY_SECONDS: '15' }).shutdownDelaySeconds).toBe(15);
    expect(() => loadConfig({ DATA_DIR: dataDir(), SHUTDOWN_DELAY_SECONDS: '-1' })).toThrow('SHUTDOWN_DELAY_SECONDS must be an integer from 0 to 300');
  });

  it('reads the size of the database pool', () => {
    expect(loadConfig({ DATA_DIR: dataDir(), DATABASE_POOL_SIZE: '8' }).databasePoolSize).toBe(8);
  });

  it('serves /metrics on PORT by default, on METRICS_PORT when set, or nowhere with off', () => {
    expect(loadConfig({ DATA_DIR: dataDir() }).metricsPort).toBeNull();
    expect(loadConfig({ DATA_DIR: dataDir(), METRICS_PORT: '9464' }).metricsPort).toBe(9464);
    expect(loadConfig({ DATA_DIR: dataDir(), METRICS_PORT: 'OFF' }).metricsPort).toBe('off');
  });

  it('never serves /metrics on the service port in production: only on METRICS_PORT', () => {
    const production = {
      DATA_DIR: dataDir(),
      NODE_ENV: 'production',
      SERVER_SECRET: 'Zx8Qm2vL0aR7tK4pW9cE1yH6uJ3nB5dF',
      PUBLIC_BASE_URL: 'https://api.example.com',
    };
    expect(loadConfig(production).metricsPort).toBe('off');
    expect(loadConfig({ ...production, METRICS_PORT: '9464' }).metricsPort).toBe(9464);
  });

  it('keeps the key activation delay at ten refetch intervals or more in production, and any delay elsewhere', () => {
    expect(MIN_PRODUCTION_KEY_ACTIVATION_DELAY_SECONDS).toBe((UNKNOWN_KID_REFETCH_INTERVAL_MS / 1000) * 10);
    const production = {
      DATA_DIR: dataDir(),
      NODE_ENV: 'production',
      SERVER_SECRET: 'Zx8Qm2vL0aR7tK4pW9cE1yH6uJ3nB5dF',
      PUBLIC_BASE_URL: 'https://api.example.com',
    };
    expect(loadConfig(production).keyActivationDelaySeconds).toBe(600);
    expect(loadConfig({ ...production, KEY_ACTIVATION_DELAY_SECONDS: '300' }).keyActivationDelaySeconds).toBe(300);
    expect(loadConfig({ DATA_DIR: dataDir(), KEY_ACTIVATION_DELAY_SECONDS: '0' }).keyActivationDelaySeconds).toBe(0);
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
    [
      {
        NODE_ENV: 'production',
        SERVER_SECRET: 'Zx8Qm2vL0aR7tK4pW9cE1yH6uJ3nB5dF',
        PUBLIC_BASE_URL: 'https://api.example.com',
        PLATFORM_JWKS_URL: 'http://platform.internal/platform/v1/jwks',
      },
      'PLATFORM_JWKS_URL must be an https URL',
    ],
    [{ SERVER_SECRET_PREVIOUS: 'short' }, 'SERVER_SECRET_PREVIOUS must be at least 32 characters'],
    [
      { SERVER_SECRET: 'the-same-secret-the-same-secret-0123', SERVER_SECRET_PREVIOUS: 'the-same-secret-the-same-secret-0123' },
      'SERVER_SECRET_PREVIOUS must differ',
    ],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ HTTP_HEADERS_TIMEOUT_MS: '50' }, 'HTTP_HEADERS_TIMEOUT_MS'],
    [{ HTTP_HEADERS_TIMEOUT_MS: '60000' }, 'HTTP_HEADERS_TIMEOUT_MS'],
    [{ NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://api.example.com' }, 'SERVER_SECRET'],
    [{ NODE_ENV: 'production', SERVER_SECRET: 'Zx8Qm2vL0aR7tK4pW9cE1yH6uJ3nB5dF' }, 'PUBLIC_BASE_URL is required'],
    [
      { NODE_ENV: 'production', SERVER_SECRET: 'Zx8Qm2vL0aR7tK4pW9cE1yH6uJ3nB5dF', PUBLIC_BASE_URL: 'http://api.example.com' },
      'PUBLIC_BASE_URL must be an https URL',
    ],
    [{ SERVER_SECRET: 'short' }, 'SERVER_SECRET'],
    [{ METRICS_PORT: 'elsewhere' }, 'METRICS_PORT'],
    [{ METRICS_PORT: '3000' }, 'METRICS_PORT must differ from PORT'],
    [{ ACTIVITY_RETENTION_DAYS: '0' }, 'ACTIVITY_RETENTION_DAYS'],
    [{ STREAM_AUDIT_RETENTION_DAYS: 'a year' }, 'STREAM_AUDIT_RETENTION_DAYS'],
    [{ DATABASE_POOL_SIZE: '0' }, 'DATABASE_POOL_SIZE'],
    [{ DATABASE_POOL_SIZE: 'many' }, 'DATABASE_POOL_SIZE'],
    [
      {
        NODE_ENV: 'production',
        SERVER_SECRET: 'Zx8Qm2vL0aR7tK4pW9cE1yH6uJ3nB5dF',
        PUBLIC_BASE_URL: 'https://api.example.com',
        KEY_ACTIVATION_DELAY_SECONDS: '299',
      },
      'KEY_ACTIVATION_DELAY_SECONDS must be at least 300',
    ],
  ])('refuses %j naming %s', (env, variable) => {
    expect(() => loadConfig({ DATA_DIR: dataDir(), ...env })).toThrow(ConfigError);
    expect(() => loadConfig({ DATA_DIR: dataDir(), ...env })).toThrow(variable);
  });

  it('reads the URL of the platform key set for a process deployed apart from the platform', () => {
    const url = 'https://api.example.com/platform/v1/jwks';
    expect(loadConfig({ DATA_DIR: dataDir(), PLATFORM_JWKS_URL: url }).platformJwksUrl).toBe(url);
  });

  it.each([
    ['s'.repeat(40), 'distinct'],
    ['0123456789'.repeat(4), 'pattern repeated'],
    ['my-Secret-42-my-Secret-42-my-Secret-42', 'pattern repeated'],
    ['abcabcabcabcabcabcabcabcabcabcabcabc', 'distinct'],
  ])('refuses a guessable SERVER_SECRET in production (%s), naming the variable', (secret, reason) => {
    expect(() => loadConfig({ DATA_DIR: dataDir(), NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://api.example.com', SERVER_SECRET: secret })).toThrow(
      /^SERVER_SECRET .*/,
    );
    expect(secretWeakness(secret)).toContain(reason);
  });

  it.each(['Zx8Qm2vL0aR7tK4pW9cE1yH6uJ3nB5dF', 'f3a9c21e8b4d60f5a2e19c7b3d8e0a4f', 'production-test-server-secret-0123456789'])(
    'accepts random-looking secrets in production (%s)',
    (secret) => {
      expect(secretWeakness(secret)).toBeUndefined();
      expect(
        loadConfig({ DATA_DIR: dataDir(), NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://api.example.com', SERVER_SECRET: secret }).serverSecret.toString(),
      ).toBe(secret);
    },
  );

  it('keeps accepting a long, patterned secret outside production (tests and laptops)', () => {
    expect(() => loadConfig({ DATA_DIR: dataDir(), SERVER_SECRET: 's'.repeat(32) })).not.toThrow();
  });

  it('refuses to start the embedded database in production: DATABASE_URL is required', async () => {
    const config = loadConfig({
      DATA_DIR: dataDir(),
      NODE_ENV: 'production',
      SERVER_SECRET: 'Zx8Qm2vL0aR7tK4pW9cE1yH6uJ3nB5dF',
      PUBLIC_BASE_URL: 'https://api.example.com',
    });
    await expect(locateDatabase(config, () => undefined)).rejects.toThrow(
      new ConfigError('DATABASE_URL is required when NODE_ENV=production (the embedded database is for development and tests)'),
    );
  });

  it('is secure by default in production: no insecure webhook URLs', () => {
    const config = loadConfig({
      DATA_DIR: dataDir(),
      NODE_ENV: 'production',
      SERVER_SECRET: 'Zx8Qm2vL0aR7tK4pW9cE1yH6uJ3nB5dF',
      PUBLIC_BASE_URL: 'https://api.example.com',
    });
    expect(config.webhookAllowInsecureUrls).toBe(false);
  });
});
