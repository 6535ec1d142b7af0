import { Logger } from '@nestjs/common';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { loadConfig } from '../../src/config/app-config.js';
import { configurationSummary } from '../../src/observability/lifecycle-log.js';
import { NestJsonLogger } from '../../src/observability/logger.js';

/** Every line the service's own loggers write has a `msg`, and the context it came from. */
function capture(): { lines: () => Record<string, unknown>[] } {
  const written: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written.push(chunk.toString());
      done();
    },
  });
  Logger.overrideLogger(new NestJsonLogger(pino({ level: 'debug', base: undefined, timestamp: false }, sink)));
  return { lines: () => written.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

afterAll(() => Logger.overrideLogger(new Logger()));

describe('NestJsonLogger', () => {
  it.each([
    ['warn(fields, text)', (logger: Logger) => logger.warn({ url: 'https://keys.example' }, 'platform key set unreachable'), 'platform key set unreachable'],
    ['warn({}, text)', (logger: Logger) => logger.warn({}, 'the standby is behind'), 'the standby is behind'],
    ['error(fields, text)', (logger: Logger) => logger.error({ err: 'boom' }, 'unexpected error'), 'unexpected error'],
    ['log(fields with msg)', (logger: Logger) => logger.log({ msg: 'monthly partitions changed', created: 1 }), 'monthly partitions changed'],
    ['warn(text)', (logger: Logger) => logger.warn('Purging idle rate-limit buckets failed'), 'Purging idle rate-limit buckets failed'],
    ['error(text, stack)', (logger: Logger) => logger.error('listen failed', 'Error: at line 1'), 'listen failed'],
    ['log(fields without msg)', (logger: Logger) => logger.log({ created: 1 }), 'RemoteKeySet'],
  ])('%s writes msg and the logger context', (_name, write, msg) => {
    const { lines } = capture();
    write(new Logger('RemoteKeySet'));
    expect(lines()).toEqual([expect.objectContaining({ msg, context: 'RemoteKeySet' })]);
  });

  it('keeps the fields of an object message and the stack of an error', () => {
    const { lines } = capture();
    const logger = new Logger('ReportingDb');
    logger.warn({ err: 'canceling statement' }, 'the standby could not answer a report');
    logger.error('listen failed', 'Error: at line 1');
    expect(lines()).toEqual([
      { level: 40, context: 'ReportingDb', err: 'canceling statement', msg: 'the standby could not answer a report' },
      { level: 50, context: 'ReportingDb', detail: 'Error: at line 1', msg: 'listen failed' },
    ]);
  });
});

describe('the start line', () => {
  it('summarises the configuration without a secret, a password or a key', () => {
    const secret = 'Zx8Qm2vL0aR7tK4pW9cE1yH6uJ3nB5dF';
    const summary = configurationSummary(
      loadConfig({
        NODE_ENV: 'production',
        PUBLIC_BASE_URL: 'https://api.example.com',
        DATABASE_URL: 'postgres://app:db-Password-1@db.internal:5432/partner_api?sslmode=require',
        DATABASE_READ_URL: 'postgres://app:db-Password-1@standby.internal/partner_api',
        SERVER_SECRET: secret,
        SERVER_SECRET_PREVIOUS: `${secret}-before`,
        STORAGE: 's3',
        S3_BUCKET: 'media',
        S3_ACCESS_KEY_ID: 'AKIAEXAMPLEKEYID',
        S3_SECRET_ACCESS_KEY: 's3-secret-access-key',
        METRICS_PORT: '9464',
      }),
    );
    expect(summary).toMatchObject({
      node_env: 'production',
      database: 'db.internal:5432/partner_api',
      database_read: 'standby.internal/partner_api',
      services: ['platform', 'reading', 'sandbox', 'kids'],
      storage: 's3',
      s3_bucket: 'media',
      metrics_port: 9464,
      server_secret_previous_set: true,
    });
    const text = JSON.stringify(summary);
    for (const hidden of [secret, 'db-Password-1', 'app:', 'AKIAEXAMPLEKEYID', 's3-secret-access-key', 'sslmode']) expect(text).not.toContain(hidden);
  });
});
