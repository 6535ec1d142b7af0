import { Injectable } from '@nestjs/common';
import { stat } from 'node:fs/promises';
import { AudioImportError, AudioProbe, type Mp3Facts } from '../domain/audio.probe.js';

/** MPEG 1, 2 and 2.5 Layer III: what players and the contract call mp3. */
const MP3_CODEC = /^MPEG (1|2|2\.5) Layer 3$/;

@Injectable()
export class MusicMetadataAudioProbe extends AudioProbe {
  async inspectMp3(filePath: string): Promise<Mp3Facts> {
    const file = await stat(filePath).catch((error: NodeJS.ErrnoException) => {
      throw new AudioImportError(`Cannot read "${filePath}": ${error.code ?? error.message}`);
    });
    if (!file.isFile()) throw new AudioImportError(`"${filePath}" is not a file`);
    // Loaded on first use: only imports read audio, and the parser weighs on every process's memory.
    const { parseFile } = await import('music-metadata');
    // duration: true scans every frame when the file has no header that states it.
    const { format } = await parseFile(filePath, { duration: true, skipCovers: true }).catch(() => {
      throw new AudioImportError(`"${filePath}" is not an mp3 file: its audio format is not recognised`);
    });
    const found = [format.container, format.codec].filter(Boolean).join(' / ') || 'no audio';
    if (format.container !== 'MPEG' || !MP3_CODEC.test(format.codec ?? '')) {
      throw new AudioImportError(`"${filePath}" is not an mp3 file (found: ${found})`);
    }
    // The contract promises a single fixed-bitrate file; a VBR file carries a "V…" profile.
    if (format.codecProfile?.startsWith('V')) {
      throw new AudioImportError(`"${filePath}" is a variable-bitrate mp3 (${format.codecProfile}); encode narration at a constant bitrate`);
    }
    if (!format.duration || !format.bitrate) {
      throw new AudioImportError(`"${filePath}" holds no complete mp3 audio frames (found: ${found})`);
    }
    return { bytes: file.size, durationSeconds: Math.round(format.duration), bitrateKbps: Math.round(format.bitrate / 1000) };
  }
}
