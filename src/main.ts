// First: V8 heap settings must be in place before the other modules allocate.
import './bootstrap/v8-heap.js';
import 'reflect-metadata';
import { createApp } from './bootstrap/create-app.js';
import { ConfigError, loadConfig, type AppConfig } from './config/app-config.js';
import { locateDatabase } from './database/database-location.js';
import { EmbeddedDatabaseError } from './database/embedded-postgres.js';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const database = await locateDatabaseOrExit(config);
  const app = await createApp(config, database.url);
  await app.listen({ port: config.port, host: config.host });
  printWelcome(config);
  // Graceful stop: finish in-flight requests and webhook attempts, close the pool, then
  // stop the embedded database if this process started it.
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, async () => {
      if (stopping) return;
      stopping = true;
      await app.close();
      await database.release();
      process.exit(0);
    });
  }
}

function loadConfigOrExit(): AppConfig {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`Configuration error: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

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

function printWelcome(config: AppConfig): void {
  const lines = [
    '',
    `Partner Reading and Listening API listening on ${config.publicBaseUrl}`,
    `  Swagger UI:   ${config.publicBaseUrl}/docs`,
    `  OpenAPI JSON: ${config.publicBaseUrl}/docs/openapi.json`,
    '  Create a sandbox credential:',
    '    npm run cli -- partner:create --name "My company" --sandbox',
    '',
  ];
  process.stderr.write(lines.join('\n') + '\n');
}

await main();
