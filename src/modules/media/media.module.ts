import { Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { MediaService } from './application/media.service.js';
import { StreamAuditBatcher } from './application/stream-audit-batcher.js';
import { AudioProbe } from './domain/audio.probe.js';
import { MediaStorage } from './domain/media.storage.js';
import { StreamAuditRepository } from './domain/stream-audit.repository.js';
import { LocalMediaController } from './http/local-media.controller.js';
import { VoicesController } from './http/voices.controller.js';
import { LocalMediaStorage } from './infrastructure/local-media.storage.js';
import { MusicMetadataAudioProbe } from './infrastructure/music-metadata-audio.probe.js';
import { PgStreamAuditRepository } from './infrastructure/pg-stream-audit.repository.js';
import { MediaSubscriberData } from './infrastructure/media.subscriber-data.js';
import { subscriberData } from '../../shared/persistence/subscriber-rows.js';

/** Narration storage and delivery, the stream URL audit log, and the voice catalog. */
@Module({
  controllers: [LocalMediaController, VoicesController],
  providers: [
    ...subscriberData(MediaSubscriberData),
    LocalMediaStorage,
    {
      provide: MediaStorage,
      inject: [AppConfig, LocalMediaStorage],
      // The AWS SDK is loaded only when S3 is configured: it adds about 25 MB to every
      // process's resident memory, and the default storage is local.
      useFactory: async (config: AppConfig, local: LocalMediaStorage): Promise<MediaStorage> =>
        config.storage === 's3' ? new (await import('./infrastructure/s3-media.storage.js')).S3MediaStorage(config.s3!) : local,
    },
    { provide: AudioProbe, useClass: MusicMetadataAudioProbe },
    { provide: StreamAuditRepository, useClass: PgStreamAuditRepository },
    StreamAuditBatcher,
    MediaService,
  ],
  exports: [MediaService],
})
export class MediaModule {}
