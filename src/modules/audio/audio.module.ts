import { Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/index.js';
import { EntitlementsModule } from '../entitlements/index.js';
import { MediaModule } from '../media/index.js';
import { ReadingModule } from '../reading/index.js';
import { AudioService } from './application/audio.service.js';
import { AudioController } from './http/audio.controller.js';

/**
 * The audio endpoints: stream URLs and narration metadata (contract 4.1, DECISIONS 11).
 * A module of its own because it sits above the ones it composes: the catalog already
 * depends on media (its import stores the narration files), so media cannot reach back
 * into the catalog, reading and entitlements to answer the stream endpoint itself.
 */
@Module({
  imports: [CatalogModule, ReadingModule, EntitlementsModule, MediaModule],
  controllers: [AudioController],
  providers: [AudioService],
})
export class AudioModule {}
