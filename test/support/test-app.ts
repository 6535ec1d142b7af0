import 'reflect-metadata';
import type { Type } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DestinationStream } from 'pino';
import { createApp } from '../../src/bootstrap/create-app.js';
import { loadConfig, type AppConfig } from '../../src/config/app-config.js';
import { PartnerCredentialsService, type IssuedCredential, type Scope } from '../../src/modules/identity/index.js';
import { createTestDatabase } from './test-database.js';

const GENEROUS_LIMITS = {
  RATE_LIMIT_RPS: '100000',
  RATE_LIMIT_BURST: '100000',
  TOKEN_FAILURES_PER_MINUTE: '100000',
  UNAUTHENTICATED_RPS: '100000',
  UNAUTHENTICATED_BURST: '100000',
};

export const TEST_BASE_URL = 'http://localhost:3000';
/** Services started on a test app's database need the same secret to read what it sealed and hashed. */
export const TEST_SERVER_SECRET = 'test-server-secret-test-server-secret';

export interface TestApp {
  app: NestFastifyApplication;
  config: AppConfig;
  databaseUrl: string;
  inject: NestFastifyApplication['inject'];
  /** A new partner with one credential (all scopes unless given). */
  partner(options?: { scopes?: Scope[]; environment?: 'live' | 'sandbox' }): Promise<IssuedCredential>;
  /** A token for the credential, from the real token endpoint. */
  token(credential: IssuedCredential): Promise<string>;
  close(): Promise<void>;
}

/** The real service (real HTTP stack, real PostgreSQL) on a database of its own; `extraModules` as createApp's (the bench's probes). */
export async function startTestApp(
  env: Record<string, string> = {},
  databaseUrl?: string,
  logDestination?: DestinationStream,
  extraModules: readonly Type[] = [],
): Promise<TestApp> {
  const url = databaseUrl ?? (await createTestDatabase());
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    PUBLIC_BASE_URL: TEST_BASE_URL,
    SERVER_SECRET: TEST_SERVER_SECRET,
    DATA_DIR: mkdtempSync(join(tmpdir(), 'prl-test-data-')),
    // Rotated keys sign at once outside production; production takes no less than 300 s.
    KEY_ACTIVATION_DELAY_SECONDS: env.NODE_ENV === 'production' ? '300' : '0',
    WEBHOOK_RETRY_SCHEDULE: '0,0.2,0.4',
    // Tests make bursts of requests with one credential, and of refused ones from one
    // address; the rate-limit tests set their own.
    ...GENEROUS_LIMITS,
    ...env,
  });
  const app = await createApp(config, url, logDestination, extraModules);
  const credentials = app.get(PartnerCredentialsService);
  const testApp: TestApp = {
    app,
    config,
    databaseUrl: url,
    inject: app.inject.bind(app),
    partner: ({ scopes, environment } = {}) => credentials.createPartner('Test partner', scopes, environment),
    async token(credential) {
      const response = await app.inject({
        method: 'POST',
        url: '/platform/v1/oauth2/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ grant_type: 'client_credentials', client_id: credential.client_id, client_secret: credential.client_secret }).toString(),
      });
      if (response.statusCode !== 200) throw new Error(`token request failed: ${response.statusCode} ${response.body}`);
      return response.json().access_token as string;
    },
    close: () => app.close(),
  };
  return testApp;
}

/**
 * The environment of a built service process (test/support/processes.ts) on a test app's
 * database: same secret and issuer, so the test app's credentials and tokens work in it.
 */
export function serviceEnvFor(t: TestApp, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    DATABASE_URL: t.databaseUrl,
    PUBLIC_BASE_URL: TEST_BASE_URL,
    SERVER_SECRET: TEST_SERVER_SECRET,
    DATA_DIR: mkdtempSync(join(tmpdir(), 'prl-test-service-')),
    KEY_ACTIVATION_DELAY_SECONDS: '0',
    ...GENEROUS_LIMITS,
    ...overrides,
  };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * The usual set-up of a test file: the real service on a database of its own, started
 * before the file's tests and closed after them. Read its fields inside tests and hooks
 * (they are filled in `beforeAll`).
 */
export function useTestApp(env: Record<string, string> = {}): TestApp {
  const handle = {} as TestApp;
  beforeAll(async () => {
    Object.assign(handle, await startTestApp(env));
  });
  afterAll(() => handle.close?.());
  return handle;
}
