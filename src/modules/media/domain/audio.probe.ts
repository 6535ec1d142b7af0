/** What the service learns from an mp3 at import, and stores for the stream response. */
export interface Mp3Facts {
  bytes: number;
  /** Rounded to whole seconds, as `duration_seconds` in the contract. */
  durationSeconds: number;
  bitrateKbps: number;
}

/** A file that cannot be imported as narration; the message names the file and why. */
export class AudioImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AudioImportError';
  }
}

/** Reads duration and bitrate from the audio itself, never from a file name or a catalog. */
export abstract class AudioProbe {
  /** The file's facts, or AudioImportError when it is not a constant-bitrate mp3. */
  abstract inspectMp3(filePath: string): Promise<Mp3Facts>;
}
