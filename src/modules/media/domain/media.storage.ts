/**
 * Where narration files live (DECISIONS 11): local files served by the service itself, or
 * an S3-compatible bucket. The back end is chosen by STORAGE; callers never know which.
 */
export abstract class MediaStorage {
  /** Stores the file at `sourceFilePath` under `key`, replacing any object there. */
  abstract put(key: string, sourceFilePath: string): Promise<void>;

  /**
   * A URL that fetches `key` without any other credential, valid from `issuedAt` for
   * `expiresInSeconds` and refused afterwards.
   */
  abstract signedUrl(key: string, issuedAt: Date, expiresInSeconds: number): Promise<string>;
}

export const MP3_CONTENT_TYPE = 'audio/mpeg';
