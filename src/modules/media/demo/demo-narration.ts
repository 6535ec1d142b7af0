import { Mp3Encoder } from '@breezystack/lamejs';
import { assertChapter } from '../domain/media-key.js';

/**
 * Stand-in narration for the sandbox's demo catalog (DECISIONS 17): a short chime melody
 * per chapter, encoded to mp3 in pure JavaScript so that no machine needs an audio tool.
 * Everything derives from the novel id and chapter number, so the same chapter always
 * gives the same bytes; chapters of one novel share a key and tempo, and each chapter
 * has its own melody and length.
 */
export const DEMO_AUDIO_FORMAT = { sampleRate: 22_050, bitrateKbps: 32, channels: 1 } as const;

const MIN_SECONDS = 6;
const MAX_SECONDS = 12;
/** Notes stop this long before the end so the last one rings out. */
const RING_OUT_SECONDS = 1.5;
const FADE_SECONDS = 0.05;
/** Every file peaks at -6 dBFS: chimes at a comfortable level, the same from file to file. */
const PEAK = 0.5;
const PENTATONIC = [0, 2, 4, 7, 9];
/** Bell-like partials: frequency ratio, relative level, decay time in seconds. */
const PARTIALS = [
  [1, 1, 1.2],
  [2, 0.45, 0.6],
  [3, 0.2, 0.35],
  [4.2, 0.1, 0.2],
] as const;
const { cos, sin, exp, PI } = Math;

/** lamejs encodes MPEG-2 Layer III frames of 576 samples; any multiple works as a chunk. */
const ENCODE_CHUNK = 576 * 8;

export interface DemoChapter {
  novelId: string;
  chapterNumber: number;
}

export const demoFileName = ({ novelId, chapterNumber }: DemoChapter): string => `${novelId}-${chapterNumber}.mp3`;

/** The whole seconds of audio a chapter gets: from 6 to 12, fixed per chapter. */
export function demoDurationSeconds(chapter: DemoChapter): number {
  return MIN_SECONDS + (hash(`${chapter.novelId}#${chapter.chapterNumber}#length`) % (MAX_SECONDS - MIN_SECONDS + 1));
}

/** The chapter's mp3 file, byte for byte the same on every run. */
export function renderDemoNarration(chapter: DemoChapter): Buffer {
  assertChapter(chapter.novelId, chapter.chapterNumber);
  return encodeMp3(synthesise(chapter));
}

function synthesise(chapter: DemoChapter): Float64Array {
  const { sampleRate } = DEMO_AUDIO_FORMAT;
  const novel = hash(chapter.novelId);
  const random = mulberry32(hash(`${chapter.novelId}#${chapter.chapterNumber}`));
  const rootMidi = 57 + (novel % 8); // A3 to E4
  const beatSeconds = 0.3 + (novel % 5) * 0.05;
  const durationSeconds = demoDurationSeconds(chapter);
  const samples = new Float64Array(durationSeconds * sampleRate);

  // A soft drone on the root and fifth under the melody.
  addSine(samples, midiToHz(rootMidi - 12), 0, samples.length, 0.12, Infinity);
  addSine(samples, midiToHz(rootMidi - 5), 0, samples.length, 0.06, Infinity);

  // A random walk over two octaves of the pentatonic scale, some beats left silent.
  let degree = Math.floor(random() * PENTATONIC.length);
  for (let at = 0.2; at < durationSeconds - RING_OUT_SECONDS; at += beatSeconds) {
    degree = Math.min(2 * PENTATONIC.length - 1, Math.max(0, degree + Math.floor(random() * 5) - 2));
    if (random() < 0.2) continue;
    const midi = rootMidi + 12 * Math.floor(degree / PENTATONIC.length) + PENTATONIC[degree % PENTATONIC.length];
    addBell(samples, midiToHz(midi), Math.round(at * sampleRate), 0.5 + random() * 0.5);
  }
  return normalise(fade(samples));
}

/** A bell: a few partials that start together and die away, each at its own rate. */
function addBell(samples: Float64Array, hz: number, start: number, velocity: number): void {
  for (const [ratio, level, decaySeconds] of PARTIALS) {
    // Six decay times take a partial below -50 dB: the rest is not worth computing.
    const end = Math.min(samples.length, start + Math.round(decaySeconds * 6 * DEMO_AUDIO_FORMAT.sampleRate));
    addSine(samples, hz * ratio, start, end, velocity * level, decaySeconds);
  }
}

/**
 * Adds a sine from `start` to `end` with a 5 ms attack and an exponential decay
 * (none when `decaySeconds` is Infinity). The sine is a rotating phasor rather than a call
 * to Math.sin per sample: a few multiplications, fast even under Jest's VM contexts.
 */
function addSine(samples: Float64Array, hz: number, start: number, end: number, level: number, decaySeconds: number): void {
  const { sampleRate } = DEMO_AUDIO_FORMAT;
  const step = (2 * PI * hz) / sampleRate;
  const [cosStep, sinStep] = [cos(step), sin(step)];
  const decayPerSample = exp(-1 / (decaySeconds * sampleRate));
  const attack = Math.round(0.005 * sampleRate);
  let [re, im, amplitude] = [1, 0, level];
  for (let i = start; i < end; i++) {
    const t = i - start;
    samples[i] += (t < attack ? t / attack : 1) * amplitude * im;
    const nextRe = re * cosStep - im * sinStep;
    im = re * sinStep + im * cosStep;
    re = nextRe;
    amplitude *= decayPerSample;
  }
}

/** Short fades at both ends, so playback starts and stops without a click. */
function fade(samples: Float64Array): Float64Array {
  const length = Math.round(FADE_SECONDS * DEMO_AUDIO_FORMAT.sampleRate);
  for (let i = 0; i < length; i++) {
    samples[i] *= i / length;
    samples[samples.length - 1 - i] *= i / length;
  }
  return samples;
}

function normalise(samples: Float64Array): Float64Array {
  let peak = 0;
  for (const value of samples) peak = Math.max(peak, Math.abs(value));
  return peak === 0 ? samples : samples.map((value) => (value / peak) * PEAK);
}

function encodeMp3(samples: Float64Array): Buffer {
  const { channels, sampleRate, bitrateKbps } = DEMO_AUDIO_FORMAT;
  const pcm = Int16Array.from(samples, (value) => Math.round(value * 32767));
  const encoder = new Mp3Encoder(channels, sampleRate, bitrateKbps);
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < pcm.length; i += ENCODE_CHUNK) chunks.push(encoder.encodeBuffer(pcm.subarray(i, i + ENCODE_CHUNK)));
  chunks.push(encoder.flush());
  // lamejs hands out Int8Arrays whatever its typings say; Buffer.concat wants bytes.
  return Buffer.concat(chunks.map((chunk) => Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)));
}

const midiToHz = (midi: number) => 440 * 2 ** ((midi - 69) / 12);

/** FNV-1a, 32 bits: a stable seed from text. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A small seeded generator (mulberry32): the same seed, the same sequence, everywhere. */
function mulberry32(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
