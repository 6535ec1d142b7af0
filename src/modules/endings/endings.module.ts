import { Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/index.js';
import { EntitlementsModule } from '../entitlements/index.js';
import { ReadingModule } from '../reading/index.js';
import { WebhooksModule } from '../webhooks/index.js';
import { EndingsService } from './application/endings.service.js';
import { EndingsController } from './http/endings.controller.js';

/** The choice of ending that finishes a novel, and the novel.finished event it emits (DECISIONS 7). */
@Module({
  imports: [CatalogModule, ReadingModule, EntitlementsModule, WebhooksModule],
  controllers: [EndingsController],
  providers: [EndingsService],
})
export class EndingsModule {}
