import { Module } from '@nestjs/common';
import { AnalyticsModule } from '../analytics/index.js';
import { CatalogModule } from '../catalog/index.js';
import { ReadingModule } from '../reading/index.js';
import { PlaybackService } from './application/playback.service.js';
import { PlaybackPositionRepository } from './domain/playback-position.repository.js';
import { PlaybackController } from './http/playback.controller.js';
import { PgPlaybackPositionRepository } from './infrastructure/pg-playback-position.repository.js';
import { PlaybackSubscriberData } from './infrastructure/playback.subscriber-data.js';
import { subscriberData } from '../../shared/persistence/subscriber-rows.js';

/** Listening positions per (subscriber, novel), gated by the drip (DECISIONS 12). */
@Module({
  imports: [CatalogModule, ReadingModule, AnalyticsModule],
  controllers: [PlaybackController],
  providers: [...subscriberData(PlaybackSubscriberData), { provide: PlaybackPositionRepository, useClass: PgPlaybackPositionRepository }, PlaybackService],
  exports: [PlaybackService],
})
export class PlaybackModule {}
