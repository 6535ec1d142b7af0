import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { chaptersOfArguments, chaptersOfManifest, DEMO_AUDIO_DIR, DEMO_MANIFEST_PATH } from '../../src/modules/media/demo/demo-audio-targets.js';
import { DEMO_AUDIO_FORMAT, demoDurationSeconds, demoFileName, renderDemoNarration, type DemoChapter } from '../../src/modules/media/demo/demo-narration.js';
import { MusicMetadataAudioProbe } from '../../src/modules/media/infrastructure/music-metadata-audio.probe.js';

const probe = new MusicMetadataAudioProbe();
const files = readdirSync(DEMO_AUDIO_DIR)
  .filter((name) => name.endsWith('.mp3'))
  .sort();

/** The chapter a committed file is for, from its name `<novel-id>-<chapter>.mp3`. */
function chapterOf(fileName: string): DemoChapter {
  const match = /^(.+)-(\d+)\.mp3$/.exec(fileName);
  if (!match) throw new Error(`${fileName} is not named <novel-id>-<chapter>.mp3`);
  return { novelId: match[1], chapterNumber: Number(match[2]) };
}

describe('the committed demo narration', () => {
  it('covers several novels with several chapters each, in under 3 MB', () => {
    const novels = new Set(files.map((name) => chapterOf(name).novelId));
    expect(novels.size).toBeGreaterThanOrEqual(6);
    expect(files.length).toBeGreaterThanOrEqual(2 * novels.size);
    const bytes = files.reduce((sum, name) => sum + statSync(join(DEMO_AUDIO_DIR, name)).size, 0);
    expect(bytes).toBeLessThan(3 * 1024 * 1024);
  });

  it.each(files)('%s is a constant-bitrate mp3 of the planned length', async (name) => {
    const facts = await probe.inspectMp3(join(DEMO_AUDIO_DIR, name));
    expect(facts.bitrateKbps).toBe(DEMO_AUDIO_FORMAT.bitrateKbps);
    expect(facts.durationSeconds).toBe(demoDurationSeconds(chapterOf(name)));
  });

  it('gives each chapter its own audio', () => {
    const contents = new Set(files.map((name) => readFileSync(join(DEMO_AUDIO_DIR, name)).toString('base64')));
    expect(contents.size).toBe(files.length);
  });

  it('is what the generator makes today, byte for byte (else regenerate: npm run demo:audio)', () => {
    // One file: encoding is slow under Jest, and every chapter goes through the same code.
    expect(renderDemoNarration(chapterOf(files[0])).equals(readFileSync(join(DEMO_AUDIO_DIR, files[0])))).toBe(true);
  });

  it('has a file for every chapter of the demo manifest, once the manifest exists', () => {
    const expected = existsSync(DEMO_MANIFEST_PATH) ? chaptersOfManifest(JSON.parse(readFileSync(DEMO_MANIFEST_PATH, 'utf8'))).map(demoFileName) : [];
    expect(files).toEqual(expect.arrayContaining(expected));
  });
});

describe('demo narration generator', () => {
  it('reads the chapters of a manifest, numbered or counted', () => {
    const manifest = {
      novels: [
        { id: 'first', chapters: [{ number: 1 }, { number: 2 }] },
        { id: 'second', chapters: [{ title: 'One' }, { title: 'Two' }, { title: 'Three' }] },
        { id: 'third', total_chapters: 2 },
      ],
    };
    expect(chaptersOfManifest(manifest).map(demoFileName)).toEqual([
      'first-1.mp3',
      'first-2.mp3',
      'second-1.mp3',
      'second-2.mp3',
      'second-3.mp3',
      'third-1.mp3',
      'third-2.mp3',
    ]);
    expect(() => chaptersOfManifest({ novels: [{ id: 'x' }] })).toThrow(/neither a "chapters" array nor "total_chapters"/);
    expect(() => chaptersOfManifest({ books: [] })).toThrow(/no "novels" array/);
  });

  it('reads chapters named as novel-id:count arguments', () => {
    expect(chaptersOfArguments(['lighthouse:2']).map(demoFileName)).toEqual(['lighthouse-1.mp3', 'lighthouse-2.mp3']);
    expect(() => chaptersOfArguments(['Lighthouse'])).toThrow(/novel-id:chapter-count/);
  });
});
