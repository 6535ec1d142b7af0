import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_AUDIO_DIR } from '../../src/modules/media/demo/demo-audio-targets.js';

/** A directory of source files to import: a real mp3 and things that are not mp3. */
export function mediaFixtures() {
  const dir = mkdtempSync(join(tmpdir(), 'prl-media-src-'));
  const file = (name: string, bytes: Buffer | string) => {
    const path = join(dir, name);
    writeFileSync(path, bytes);
    return path;
  };
  // A committed demo file: a real mp3 (32 kbps, 6 to 12 s) without encoding one per test.
  const [demoFile] = readdirSync(DEMO_AUDIO_DIR).filter((name) => name.endsWith('.mp3'));
  const mp3Bytes = readFileSync(join(DEMO_AUDIO_DIR, demoFile));
  return {
    mp3Bytes,
    mp3: file('narration.mp3', mp3Bytes),
    text: file('notes.mp3', 'Chapter one. It was a dark and stormy night.\n'),
    wav: file('narration.wav', wavOfSilence(22_050)),
  };
}

/** A valid WAV file: audio, but not mp3. */
function wavOfSilence(samples: number): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + samples * 2, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(22_050, 24);
  header.writeUInt32LE(44_100, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(samples * 2, 40);
  return Buffer.concat([header, Buffer.alloc(samples * 2)]);
}
