import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { createApp } from './bootstrap/create-app.js';
import { openApiDocument } from './bootstrap/swagger.js';
import { loadConfig } from './config/app-config.js';
import { locateDatabase } from './database/database-location.js';

/**
 * `node dist/src/openapi.js FILE`: writes the OpenAPI document the service serves at
 * /docs/openapi.json, for the checks in CI (lint, client generation). It builds the app in
 * this process on the same configuration and database as the CLI; nothing listens.
 */
async function main(file: string | undefined): Promise<number> {
  if (!file) {
    process.stderr.write('usage: node dist/src/openapi.js FILE\n');
    return 2;
  }
  // Only failures belong on stderr: the document is the output.
  const config = loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'error' });
  const database = await locateDatabase(config, (line) => process.stderr.write(`${line}\n`));
  try {
    const app = await createApp(config, database.url);
    writeFileSync(file, JSON.stringify(openApiDocument(app, config), null, 2) + '\n');
    await app.close();
    return 0;
  } finally {
    await database.release();
  }
}

process.exit(await main(process.argv[2]));
