import { Injectable } from '@nestjs/common';
import type { Environment } from '../../../shared/tenancy/tenant.js';
import { CatalogService, type ChapterNarration, type Novel } from '../../catalog/index.js';
import type { Principal } from '../../identity/index.js';
import { MediaService } from '../../media/index.js';
import { ChapterReleaseService, chapterLocked } from '../../reading/index.js';
import { audioNotReady, planWithoutAudio } from '../domain/audio-errors.js';

/** What the stream endpoint answers (contract 2, Stream response). */
export interface ChapterStream {
  url: string;
  expiresIn: number;
  durationSeconds: number | null;
}

export interface NovelNarration {
  novel: Novel;
  chapters: ChapterNarration[];
}

/**
 * The audio surface (contract 4.1, DECISIONS 11): stream URLs for released chapters and
 * the narration metadata. It owns no data: it composes the catalog (what is narrated),
 * reading (what the drip released), entitlements (who may listen) and media (URLs and
 * their audit log) through their public doors.
 */
@Injectable()
export class AudioService {
  constructor(
    private readonly catalog: CatalogService,
    private readonly releases: ChapterReleaseService,
    private readonly media: MediaService,
  ) {}

  /**
   * A signed URL to a chapter's mp3. Checked in the contract's order once the novel and the
   * chapter are found: the subscriber's plan includes audio (403 plan_without_audio), the
   * drip has released the chapter (403 chapter_locked), the audio is ready (404
   * audio_not_ready). The URL is handed out only after its audit row is written: if that
   * write fails, the request fails.
   */
  async streamUrl(caller: Principal, novelId: string, chapterNumber: number, subscriberId: string): Promise<ChapterStream> {
    // The subscriber's features and progress come in one statement: audio decides the first
    // check, early access and the progress the drip.
    const [{ narration }, reader] = await Promise.all([
      this.catalog.publishedNarration(caller.environment, novelId, chapterNumber),
      this.releases.readerState(caller, subscriberId, novelId),
    ]);
    if (!reader.features.audio) throw planWithoutAudio(subscriberId);
    const release = this.releases.releaseOf(reader, chapterNumber, reader.now);
    if (!release.released) throw chapterLocked(novelId, chapterNumber, release);
    const { status, key, durationSeconds } = narration.audio;
    if (status !== 'ready' || key === null) throw audioNotReady(novelId, chapterNumber, status);
    const issued = await this.media.issueStreamUrl(key, {
      partnerId: caller.partnerId,
      environment: caller.environment,
      clientId: caller.clientId,
      subscriberId,
      novelId,
      chapterNumber,
    });
    return { url: issued.url, expiresIn: issued.expiresIn, durationSeconds };
  }

  /** The narration of every chapter of a published novel. */
  async novelNarration(environment: Environment, novelId: string): Promise<NovelNarration> {
    const novel = await this.catalog.publishedNovel(environment, novelId);
    return { novel, chapters: await this.catalog.narrations(environment, novel) };
  }

  /** The narration of one chapter of a published novel. */
  async chapterNarration(environment: Environment, novelId: string, chapterNumber: number): Promise<ChapterNarration> {
    return (await this.catalog.publishedNarration(environment, novelId, chapterNumber)).narration;
  }
}
