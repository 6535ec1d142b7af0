import type { OnModuleDestroy } from '@nestjs/common';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { S3Settings } from '../../../config/app-config.js';
import { assertMediaKey } from '../domain/media-key.js';
import { MediaStorage, MP3_CONTENT_TYPE } from '../domain/media.storage.js';

/**
 * An S3-compatible bucket (AWS S3, MinIO, R2, …). The bucket must exist; objects stay
 * private and are read only through presigned GET URLs.
 */
export class S3MediaStorage extends MediaStorage implements OnModuleDestroy {
  private readonly client: S3Client;
  /** Signs stream URLs for the host players use (S3_PUBLIC_ENDPOINT); presigning makes no request. */
  private readonly presigner: S3Client;

  constructor(private readonly settings: S3Settings) {
    super();
    this.client = this.clientFor(settings.endpoint);
    this.presigner = settings.publicEndpoint ? this.clientFor(settings.publicEndpoint) : this.client;
  }

  private clientFor(endpoint: string | undefined): S3Client {
    const { settings } = this;
    return new S3Client({
      endpoint,
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      // Absent keys fall back to the SDK's usual chain (environment, instance role, …).
      credentials:
        settings.accessKeyId && settings.secretAccessKey ? { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } : undefined,
      // The SDK otherwise adds checksum parameters that many S3-compatible servers refuse,
      // and a presigned URL would carry x-amz-checksum-mode for every player to send.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async put(key: string, sourceFilePath: string): Promise<void> {
    assertMediaKey(key);
    // Streamed from disk; S3 needs the length up front for a body that is a stream.
    const { size } = await stat(sourceFilePath);
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.settings.bucket,
        Key: key,
        Body: createReadStream(sourceFilePath),
        ContentLength: size,
        ContentType: MP3_CONTENT_TYPE,
      }),
    );
  }

  signedUrl(key: string, issuedAt: Date, expiresInSeconds: number): Promise<string> {
    assertMediaKey(key);
    return getSignedUrl(this.presigner, new GetObjectCommand({ Bucket: this.settings.bucket, Key: key }), {
      expiresIn: expiresInSeconds,
      signingDate: issuedAt,
    });
  }

  onModuleDestroy(): void {
    this.client.destroy();
    if (this.presigner !== this.client) this.presigner.destroy();
  }
}
