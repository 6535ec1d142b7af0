import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppConfig } from '../../../config/app-config.js';
import { CatalogImportService } from './catalog-import.service.js';

/** The fictitious demo catalog that ships with the project (DECISIONS 17). */
export const DEMO_MANIFEST = 'catalog/demo/manifest.json';

/**
 * Loads the demo catalog into an empty sandbox when the HTTP service starts, so that
 * `npm start` serves a playable sandbox with no setup. Only a process that serves HTTP
 * and mounts the sandbox does it: the CLI must not change the catalog behind an
 * operator's back.
 */
@Injectable()
export class DemoCatalogSeeder implements OnApplicationBootstrap {
  private readonly logger = new Logger('Catalog');

  constructor(
    private readonly config: AppConfig,
    private readonly adapterHost: HttpAdapterHost,
    private readonly importer: CatalogImportService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.adapterHost.httpAdapter || !this.config.mounts('sandbox')) return;
    const imported = await this.importer.seedIfEmpty(demoManifestPath(), 'sandbox');
    if (imported) this.logger.log(`Loaded the demo catalog into the sandbox: ${imported.novels} novels, ${imported.chapters} chapters`);
  }
}

/** The demo manifest, found from this file up to the project root (the same from src/ and dist/src/). */
export function demoManifestPath(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    const candidate = join(dir, DEMO_MANIFEST);
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`${DEMO_MANIFEST} not found above ${fileURLToPath(import.meta.url)}`);
}
