import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { AppConfig } from '../../../config/app-config.js';
import { ServerSecrets } from '../../../shared/crypto/server-secrets.js';
import { DomainError } from '../../../shared/errors/domain-error.js';
import { assertMediaKey } from '../domain/media-key.js';
import { MediaStorage } from '../domain/media.storage.js';
import { checkMediaUrl, signedMediaPath, type MediaUrlProof } from '../domain/signed-media-url.js';

/** A stored file that a signed URL may read. */
export interface LocalMediaFile {
  path: string;
  size: number;
  modifiedAt: Date;
  /** When the URL that opened it stops working. */
  urlExpiresAt: Date;
}

/**
 * Files under DATA_DIR/media, served by the service itself at signed URLs. With several
 * replicas, DATA_DIR/media must be a volume they all share (or use STORAGE=s3).
 */
@Injectable()
export class LocalMediaStorage extends MediaStorage {
  private readonly root: string;

  constructor(
    @Inject(AppConfig) private readonly config: AppConfig,
    private readonly secrets: ServerSecrets,
  ) {
    super();
    this.root = join(config.dataDir, 'media');
  }

  async put(key: string, sourceFilePath: string): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(dirname(target), { recursive: true });
    // Copied beside the target, then renamed over it: a reader sees the old file or the
    // new one, never half of one.
    const partial = `${target}.${randomBytes(6).toString('hex')}.partial`;
    try {
      await copyFile(sourceFilePath, partial);
      await rename(partial, target);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
  }

  async signedUrl(key: string, issuedAt: Date, expiresInSeconds: number): Promise<string> {
    const expiresAt = Math.floor(issuedAt.getTime() / 1000) + expiresInSeconds;
    return `${this.config.publicBaseUrl}${signedMediaPath(key, expiresAt, this.secrets.mediaUrlKey)}`;
  }

  /**
   * The file a signed URL names, if the URL is genuine and unexpired (403 otherwise) and
   * the file exists (404 otherwise).
   */
  async openSigned(key: string, proof: MediaUrlProof, nowMs: number): Promise<LocalMediaFile> {
    // Any configured secret's signature counts: during a SERVER_SECRET rotation a URL issued
    // before the switch stays good for its lifetime. But only that lifetime for the secret not
    // writing (ADR 0003): after a leak, whoever holds the old secret cannot mint a URL that
    // lasts as long as SERVER_SECRET_PREVIOUS stays configured.
    const [writingKey, ...otherKeys] = this.secrets.mediaUrlKeys;
    const latestExpiryMs = nowMs + this.config.streamUrlTtlSeconds * 1000;
    const checks = [checkMediaUrl(key, proof, writingKey, nowMs), ...otherKeys.map((urlKey) => checkMediaUrl(key, proof, urlKey, nowMs, latestExpiryMs))];
    const check = checks.find((result) => result !== 'forged') ?? 'forged';
    if (check === 'expired') {
      throw new DomainError('access_denied', 'This media URL has expired. Request a new stream URL.');
    }
    if (check === 'forged') {
      throw new DomainError('access_denied', 'This media URL is not valid: use the stream_url exactly as it was issued.');
    }
    const path = this.pathOf(key);
    const file = await stat(path).catch(() => null);
    if (!file?.isFile()) throw new DomainError('not_found', 'The media file no longer exists. Request a new stream URL.');
    return { path, size: file.size, modifiedAt: file.mtime, urlExpiresAt: new Date(Number(proof.expires) * 1000) };
  }

  private pathOf(key: string): string {
    assertMediaKey(key);
    return join(this.root, key);
  }
}
