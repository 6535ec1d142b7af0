import { Module } from '@nestjs/common';
import { CatalogImportService } from './application/catalog-import.service.js';
import { CatalogService } from './application/catalog.service.js';
import { DemoCatalogSeeder } from './application/demo-catalog.seeder.js';
import { CatalogRepository } from './domain/catalog.repository.js';
import { CatalogController } from './http/catalog.controller.js';
import { TypeOrmCatalogRepository } from './infrastructure/typeorm-catalog.repository.js';

/** Categories, novels, chapters and endings per environment, and their import (DECISIONS 9, 18). */
@Module({
  controllers: [CatalogController],
  providers: [{ provide: CatalogRepository, useClass: TypeOrmCatalogRepository }, CatalogService, CatalogImportService, DemoCatalogSeeder],
  exports: [CatalogService, CatalogImportService],
})
export class CatalogModule {}
