import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from '../../src/app.module.js';
import type { AppConfig } from '../../src/config/app-config.js';
import { HttpMetrics } from '../../src/observability/metrics.js';

/**
 * The service's modules in this process on the bench database, without HTTP: what the bench
 * drives through the service's own code (the seed's fold, a job's run, the webhook claim),
 * closed again when `use` ends.
 */
export async function withServiceContext<T>(config: AppConfig, url: string, use: (context: INestApplicationContext) => Promise<T>): Promise<T> {
  const context = await NestFactory.createApplicationContext(AppModule.forRoot({ config, databaseUrl: url, metrics: new HttpMetrics() }), {
    logger: ['error'],
  });
  try {
    return await use(context);
  } finally {
    await context.close();
  }
}
