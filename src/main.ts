// First: V8 heap settings must be in place before the other modules allocate.
import './bootstrap/v8-heap.js';
import 'reflect-metadata';
import { createApp } from './bootstrap/create-app.js';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createServer } from 'node:net';
import { pino } from 'pino';
import { resolve } from 'node:path';
import { ConfigError, loadConfig, type AppConfig } from './config/app-config.js';
import { loadEnvFile } from './config/env-file.js';
import { checkDatabaseReachable, describeDatabase, locateDatabase } from './database/database-location.js';
import { EmbeddedDatabaseError } from './database/embedded-postgres.js';
import { buildInfo } from './observability/build-info.js';
import { configurationSummary } from './observability/lifecycle-log.js';
import { createRootLogger } from './observability/logger.js';
import { SubscriberLogIds } from './shared/crypto/subscriber-log-ids.js';
import { HttpMetrics } from './observability/metrics.js';
import { ShutdownSignal } from './shared/shutdown-signal.js';
import { startMetricsServer } from './observability/metrics-server.js';

async function main(): Promise<void> {
  const config = await exitOnConfigError(() => {
    loadEnvFile();
    return loadConfig();
  });
  // Before the database starts: a taken port is the commonest stumble and costs nothing to find.
  await exitOnConfigError(() => listening('PORT', config.port, portFree(config.host, config.port)));
  const metricsPort = config.metricsPort;
  if (typeof metricsPort === 'number') await exitOnConfigError(() => listening('METRICS_PORT', metricsPort, portFree(config.host, metricsPort)));
  const database = await exitOnConfigError(() => locateDatabaseOrExit(config));
  await exitOnConfigError(() => checkDatabaseReachable(database.url));
  // A SERVER_SECRET the database was not set up with is found while the modules start.
  const app = await exitOnConfigError(() => createApp(config, database.url), database.release);
  const closeApp = async () => {
    await app.close();
    await database.release();
  };
  await exitOnConfigError(() => listening('PORT', config.port, app.listen({ port: config.port, host: config.host })), closeApp);
  const metricsServer =
    typeof metricsPort === 'number'
      ? await exitOnConfigError(() => listening('METRICS_PORT', metricsPort, startMetricsServer(app.get(HttpMetrics), config.host, metricsPort)), closeApp)
      : undefined;
  // Its own pino logger, written synchronously: Nest's Logger may hold lines back while it
  // closes, and an asynchronous write still under way at exit would land after the last line.
  const lifecycle = createRootLogger(config.logLevel, new SubscriberLogIds(config.serverSecret), pino.destination({ dest: 1, sync: true })).child({
    context: 'Lifecycle',
    ...buildInfo(),
  });
  lifecycle.info({ msg: 'service started', pid: process.pid, config: configurationSummary(config) });
  printWelcome(config);
  // Graceful stop: finish in-flight requests and webhook attempts, close the pool, then
  // stop the embedded database if this process started it.
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, async () => {
      if (stopping) return;
      stopping = true;
      const shutdown = app.get(ShutdownSignal);
      const metrics = app.get(HttpMetrics);
      if (config.shutdownDelaySeconds > 0) {
        // Keep serving while the load balancer notices the failing readiness and deregisters
        // this replica; only then refuse new requests.
        shutdown.leaveLoadBalancer();
        lifecycle.info({ msg: 'shutdown delay begun', signal, seconds: config.shutdownDelaySeconds });
        await new Promise((resolve) => setTimeout(resolve, config.shutdownDelaySeconds * 1000));
      }
      const began = Date.now();
      const answeredBefore = metrics.answered;
      // First say it: new requests and readiness get 503, long polls answer, the webhook
      // worker claims nothing more. Then close, once what is in flight has finished.
      shutdown.begin();
      lifecycle.info({ msg: 'drain begun', signal, connections_open: await openConnections(app) });
      metricsServer?.close();
      await app.close();
      lifecycle.info({
        msg: 'drain finished',
        duration_ms: Date.now() - began,
        requests_finished: metrics.answered - answeredBefore - shutdown.refused,
        requests_refused: shutdown.refused,
      });
      await database.release();
      lifecycle.info({ msg: 'exiting', exit_code: 0 });
      process.exit(0);
    });
  }
}

/** Client connections the HTTP server holds, idle keep-alive ones included. */
function openConnections(app: NestFastifyApplication): Promise<number> {
  return new Promise((resolve) => app.getHttpServer().getConnections((error, count) => resolve(error ? -1 : count)));
}

/** A configuration mistake ends the process with one line naming the variable (after `cleanUp`, such as stopping an embedded database). */
async function exitOnConfigError<T>(step: () => T | Promise<T>, cleanUp?: () => Promise<void>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`Configuration error: ${error.message}\n`);
      await cleanUp?.().catch(() => undefined);
      process.exit(1);
    }
    throw error;
  }
}

/**
 * A port another process holds (or one this user may not bind) is a configuration mistake:
 * say which variable names it. Checked before the database starts, and again at the real
 * listen, where another process may have taken it meanwhile.
 */
async function listening<T>(variable: string, port: number, listen: Promise<T>): Promise<T> {
  try {
    return await listen;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new ConfigError(`${variable}=${port} is already in use by another process; stop it or choose another ${variable}`);
    if (code === 'EACCES')
      throw new ConfigError(`${variable}=${port} may not be bound by this user (ports below 1024 need privileges); choose another ${variable}`);
    throw error;
  }
}

/** Binds and releases `port`: fails as the real listen would, before anything has started. */
function portFree(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

/** An embedded database that cannot start ends the process with one line saying why. */
async function locateDatabaseOrExit(config: AppConfig) {
  try {
    return await locateDatabase(config, (line) => process.stderr.write(`${line}\n`));
  } catch (error) {
    if (error instanceof EmbeddedDatabaseError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

/**
 * Printed last, once listening, so it is what a newcomer sees: where the docs are and the
 * exact command that creates a credential in this same database (a credential made in
 * another DATA_DIR would be refused with a silent invalid_client).
 */
function printWelcome(config: AppConfig): void {
  const lines = [
    '',
    `Partner Reading and Listening API ${buildInfo().version} (${buildInfo().commit}, Node ${process.version}) listening on ${config.publicBaseUrl}`,
    `  Swagger UI:   ${config.publicBaseUrl}/docs`,
    `  OpenAPI JSON: ${config.publicBaseUrl}/docs/openapi.json`,
    `  Database:     ${describeDatabase(config)}`,
    `  Metrics:      ${metricsLocation(config)}`,
    '  Create a sandbox credential:',
    `    ${credentialCommand(config)}`,
    ...(config.databaseUrl
      ? [`    (with the same ${config.isProduction ? 'DATABASE_URL, SERVER_SECRET and PUBLIC_BASE_URL' : 'DATABASE_URL and SERVER_SECRET'} as this service)`]
      : []),
    '',
  ];
  process.stderr.write(lines.join('\n') + '\n');
}

function metricsLocation(config: AppConfig): string {
  if (typeof config.metricsPort === 'number') return `http://${config.host}:${config.metricsPort}/metrics`;
  if (config.metricsPort === 'off') return 'off (METRICS_PORT sets a port of their own)';
  return `${config.publicBaseUrl}/metrics`;
}

function credentialCommand(config: AppConfig): string {
  const script = config.isProduction ? 'cli:prod' : 'cli';
  const command = `npm run --silent ${script} -- partner:create --name "My company" --sandbox`;
  const customDataDir = !config.databaseUrl && config.dataDir !== resolve('data');
  return customDataDir ? `DATA_DIR=${shellWord(config.dataDir)} ${command}` : command;
}

const shellWord = (text: string) => (/^[\w./:@%+-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`);

await main();
