import { Inject, Injectable } from '@nestjs/common';
import { perInstant } from '../../../shared/memo.js';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { AppConfig } from '../../../config/app-config.js';
import type { Environment } from '../../../shared/tenancy/tenant.js';
import { AudioProbe, type Mp3Facts } from '../domain/audio.probe.js';
import { chapterAudioKey } from '../domain/media-key.js';
import { MediaStorage } from '../domain/media.storage.js';
import type { StreamRecipient } from '../domain/stream-audit.repository.js';
import { StreamAuditBatcher } from './stream-audit-batcher.js';

/** A chapter's narration once stored: what the catalog keeps for its stream responses. */
export interface ImportedChapterAudio extends Mp3Facts {
  key: string;
}

export interface IssuedStreamUrl {
  url: string;
  /** Seconds, as `expires_in` in the stream response. */
  expiresIn: number;
  issuedAt: Date;
  expiresAt: Date;
}

/**
 * The media layer's one door (DECISIONS 11): imports narration into whichever storage is
 * configured, issues short-lived URLs to it, and keeps the audit log of issued URLs.
 */
@Injectable()
export class MediaService {
  /**
   * A URL is a function of its key and expiry, and issue times are whole seconds: the
   * requests of one second for one chapter share its URL, signed once. Only the current
   * second's URLs are kept.
   */
  private readonly urlsThisSecond = perInstant('media.stream-urls-this-second', (key: string, issuedAtMs: number) =>
    this.storage.signedUrl(key, new Date(issuedAtMs), this.config.streamUrlTtlSeconds),
  );

  constructor(
    private readonly storage: MediaStorage,
    private readonly probe: AudioProbe,
    private readonly auditBatcher: StreamAuditBatcher,
    @Inject(AppConfig) private readonly config: AppConfig,
  ) {}

  /**
   * Stores an mp3 as narration of a chapter, with its duration and bitrate read from the
   * audio itself, under a key named by its content (see chapterAudioKey): the chapter
   * serves it once the catalog records the key. Importing the same file again stores it
   * under the same key. Throws AudioImportError, naming the file, when it is not a
   * constant-bitrate mp3; nothing is stored then.
   */
  async importChapterAudio(environment: Environment, novelId: string, chapterNumber: number, sourceFilePath: string): Promise<ImportedChapterAudio> {
    const facts = await this.probe.inspectMp3(sourceFilePath);
    const key = chapterAudioKey(environment, novelId, chapterNumber, await contentDigest(sourceFilePath));
    await this.storage.put(key, sourceFilePath);
    return { key, ...facts };
  }

  /**
   * A URL to the object at `key`, valid for STREAM_URL_TTL_SECONDS, handed out only once its
   * audit row (who it was issued to, and its expiry) is committed: if that write fails, no URL
   * leaves. Issue times are whole seconds so that the row states exactly the expiry the URL
   * carries. Rows of concurrent requests share a statement (group commit), so the write does
   * not join a caller's unit of work.
   */
  async issueStreamUrl(key: string, issuedTo: StreamRecipient): Promise<IssuedStreamUrl> {
    const expiresIn = this.config.streamUrlTtlSeconds;
    const issuedAt = new Date(Math.floor(Date.now() / 1000) * 1000);
    const expiresAt = new Date(issuedAt.getTime() + expiresIn * 1000);
    const url = await this.urlsThisSecond.get(key, issuedAt.getTime());
    await this.auditBatcher.record({ ...issuedTo, issuedAt, expiresAt });
    return { url, expiresIn, issuedAt, expiresAt };
  }
}

/** The first 64 bits of the file's SHA-256 in hex: plenty to tell the versions of one chapter's audio apart. */
async function contentDigest(filePath: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(filePath)) hash.update(chunk as Buffer);
  return hash.digest('hex').slice(0, 16);
}
