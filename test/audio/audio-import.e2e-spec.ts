import { jest } from '@jest/globals';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DataSource } from 'typeorm';
import { COMMANDS, parseArguments, UsageError } from '../../src/cli/commands.js';
import { ManifestError } from '../../src/modules/catalog/index.js';
import { MediaService } from '../../src/modules/media/index.js';
import { demoDurationSeconds, DEMO_AUDIO_FORMAT } from '../../src/modules/media/demo/demo-narration.js';
import { importCatalog, manifest } from '../fixtures/catalog-fixture.js';
import { useTestApp } from '../support/test-app.js';
import { demoMp3, demoMp3Bytes, narratedNovel, pathOf } from './audio-fixtures.js';
import { TEST_STREAM_RECIPIENT } from '../fixtures/stream-recipient.js';

const t = useTestApp();
let db: DataSource;

beforeAll(async () => {
  db = t.app.get(DataSource);
});

interface ChapterRow {
  number: number;
  audio_status: string;
  audio_key: string | null;
  audio_bytes: string | null;
  audio_duration_seconds: number | null;
  audio_bitrate_kbps: number | null;
}

const chapterRows = (novelId: string): Promise<ChapterRow[]> =>
  db.query(
    `SELECT number, audio_status, audio_key, audio_bytes, audio_duration_seconds, audio_bitrate_kbps
       FROM chapters WHERE environment = 'live' AND novel_id = $1 ORDER BY number`,
    [novelId],
  );
const novelRow = async (novelId: string) => (await db.query(`SELECT has_audio, updated_at FROM novels WHERE environment = 'live' AND id = $1`, [novelId]))[0];

/** What a chapter serves now: the bytes behind a URL issued for its stored key. */
async function servedBytes(novelId: string, chapterNumber: number): Promise<Buffer> {
  const [row] = (await chapterRows(novelId)).filter((r) => r.number === chapterNumber);
  const { url } = await t.app.get(MediaService).issueStreamUrl(row.audio_key!, TEST_STREAM_RECIPIENT);
  return (await t.inject({ method: 'GET', url: pathOf(url) })).rawPayload;
}

/** A manifest written to a directory of its own, with its audio files copied under audio/. */
function manifestDirectory(content: object, files: Record<string, Buffer | string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'prl-audio-manifest-'));
  mkdirSync(join(dir, 'audio'));
  for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dir, 'audio', name), bytes);
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(content));
  return join(dir, 'manifest.json');
}

describe('catalog:import with audio files', () => {
  it('stores the key, size, duration and bitrate read from each mp3', async () => {
    await importCatalog(t, manifest([narratedNovel('read-from-file', [{ file: demoMp3('the-heir', 2) }, { file: demoMp3('the-heir', 5), status: 'ready' }])]));
    expect(await chapterRows('read-from-file')).toEqual(
      [2, 5].map((demoChapter, i) => ({
        number: i + 1,
        audio_status: 'ready',
        audio_key: expect.stringMatching(new RegExp(`^live/read-from-file/${i + 1}-[0-9a-f]{16}\\.mp3$`)),
        audio_bytes: String(demoMp3Bytes('the-heir', demoChapter).length),
        audio_duration_seconds: demoDurationSeconds({ novelId: 'the-heir', chapterNumber: demoChapter }),
        audio_bitrate_kbps: DEMO_AUDIO_FORMAT.bitrateKbps,
      })),
    );
    expect((await novelRow('read-from-file')).has_audio).toBe(true);
    expect((await servedBytes('read-from-file', 2)).equals(demoMp3Bytes('the-heir', 5))).toBe(true);
  });

  it('is idempotent: the same manifest again changes no row, not even updated_at', async () => {
    const content = manifest([narratedNovel('again', [{ file: demoMp3('the-heir', 1) }, { status: 'rendering' }])]);
    expect((await importCatalog(t, content)).novelsChanged).toBe(1);
    const [chapters, novel] = [await chapterRows('again'), await novelRow('again')];
    expect((await importCatalog(t, content)).novelsChanged).toBe(0);
    expect(await chapterRows('again')).toEqual(chapters);
    expect(await novelRow('again')).toEqual(novel);
  });

  it('records a status without a file as having no audio file; has_audio only when every chapter is ready', async () => {
    await importCatalog(t, manifest([narratedNovel('partly', [{ file: demoMp3('the-heir', 1) }, { status: 'rendering' }, undefined])]));
    expect((await chapterRows('partly')).map((r) => [r.audio_status, r.audio_key === null, r.audio_duration_seconds])).toEqual([
      ['ready', false, demoDurationSeconds({ novelId: 'the-heir', chapterNumber: 1 })],
      ['rendering', true, null],
      ['pending', true, null],
    ]);
    expect((await novelRow('partly')).has_audio).toBe(false);
  });

  it('switches a chapter to new audio at commit, keeping the old file for URLs already issued; dropping audio clears it', async () => {
    await importCatalog(t, manifest([narratedNovel('revised', [{ file: demoMp3('the-heir', 1) }, { file: demoMp3('the-heir', 2) }])]));
    const [before] = await chapterRows('revised');
    const oldUrl = (await t.app.get(MediaService).issueStreamUrl(before.audio_key!, TEST_STREAM_RECIPIENT)).url;

    const changed = await importCatalog(t, manifest([narratedNovel('revised', [{ file: demoMp3('the-heir', 3) }, undefined])]));
    expect(changed.novelsChanged).toBe(1);
    const [first, second] = await chapterRows('revised');
    expect(first.audio_key).not.toBe(before.audio_key);
    expect(first.audio_duration_seconds).toBe(demoDurationSeconds({ novelId: 'the-heir', chapterNumber: 3 }));
    expect((await servedBytes('revised', 1)).equals(demoMp3Bytes('the-heir', 3))).toBe(true);
    expect((await t.inject({ method: 'GET', url: pathOf(oldUrl) })).rawPayload.equals(demoMp3Bytes('the-heir', 1))).toBe(true);
    expect(second).toEqual({ number: 2, audio_status: 'pending', audio_key: null, audio_bytes: null, audio_duration_seconds: null, audio_bitrate_kbps: null });
    expect((await novelRow('revised')).has_audio).toBe(false);
  });

  it.each([
    ['a text file named .mp3', 'Chapter one. It was a dark and stormy night.\n', /is not an mp3 file/],
    ['a JSON file', JSON.stringify({ not: 'audio' }), /is not an mp3 file/],
    ['an empty file', '', /not an mp3 file|no complete mp3 audio frames/],
  ])('refuses the whole manifest over %s, naming the field and the file, and changes nothing', async (_, bytes, reason) => {
    await importCatalog(t, manifest([narratedNovel('kept', [{ file: demoMp3('the-heir', 1) }]), narratedNovel('other', [{ file: demoMp3('the-heir', 2) }])]));
    const before = {
      kept: await chapterRows('kept'),
      other: await chapterRows('other'),
      novels: await db.query(`SELECT * FROM novels WHERE environment = 'live' ORDER BY id`),
    };

    // The first novel's new audio is valid and is read first; the second's file is not audio.
    const content = manifest([
      narratedNovel('kept', [{ file: 'audio/fine.mp3' }]),
      narratedNovel('other', [{ file: 'audio/fine.mp3' }, { file: 'audio/bad.mp3' }]),
      narratedNovel('brand-new', [{ file: 'audio/fine.mp3' }]),
    ]);
    const file = manifestDirectory(content, { 'fine.mp3': demoMp3Bytes('the-heir', 4), 'bad.mp3': bytes });
    const failure = importCatalog(t, content, 'live', dirname(file));
    await expect(failure).rejects.toThrow(ManifestError);
    await expect(failure).rejects.toThrow(
      /^novels\[1\]\.chapters\[1\]\.audio\.file \(audio\/bad\.mp3\) cannot be imported as narration: ".*\/audio\/bad\.mp3" /,
    );
    await expect(failure).rejects.toThrow(reason);

    expect(await chapterRows('kept')).toEqual(before.kept);
    expect(await chapterRows('other')).toEqual(before.other);
    expect(await db.query(`SELECT * FROM novels WHERE environment = 'live' ORDER BY id`)).toEqual(before.novels);
    // The file stored for "kept" before the refusal is not what the chapter serves.
    expect((await servedBytes('kept', 1)).equals(demoMp3Bytes('the-heir', 1))).toBe(true);
  });

  describe('the command', () => {
    const runCli = async (argv: string[]) =>
      COMMANDS['catalog:import'].run(t.app, await COMMANDS['catalog:import'].check(parseArguments(argv, COMMANDS['catalog:import'].options)));

    it('reads audio files relative to the manifest, and prints progress for many files', async () => {
      const chapters = Array.from({ length: 30 }, () => ({ file: 'audio/narration.mp3' }));
      const file = manifestDirectory(manifest([narratedNovel('from-cli', chapters)]), { 'narration.mp3': demoMp3Bytes('the-heir', 3) });
      const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
      try {
        await expect(runCli([file])).resolves.toMatchObject({ novels: 1, chapters: 30, novels_changed: 1 });
        expect(stderr.mock.calls.map(([line]) => String(line))).toEqual(['catalog:import: 25/30 audio files\n', 'catalog:import: 30/30 audio files\n']);
      } finally {
        stderr.mockRestore();
      }
      expect((await servedBytes('from-cli', 30)).equals(demoMp3Bytes('the-heir', 3))).toBe(true);
    });

    it('refuses a manifest whose audio file is not an mp3 as a usage error naming the field and the file', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'prl-audio-cli-'));
      copyFileSync('package.json', join(dir, 'notes.mp3'));
      writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest([narratedNovel('refused-by-cli', [{ file: 'notes.mp3' }])])));
      const failure = runCli([join(dir, 'manifest.json')]);
      await expect(failure).rejects.toThrow(UsageError);
      await expect(failure).rejects.toThrow(
        /^invalid manifest, nothing imported: novels\[0\]\.chapters\[0\]\.audio\.file \(notes\.mp3\) cannot be imported as narration: ".*notes\.mp3" is not an mp3 file/,
      );
      expect(await chapterRows('refused-by-cli')).toEqual([]);
    });
  });
});
