import { jest } from '@jest/globals';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { COMMANDS, parseArguments, UsageError } from '../../src/cli/commands.js';
import { CatalogImportService, demoManifestPath, ManifestError } from '../../src/modules/catalog/index.js';
import { CatalogRepository } from '../../src/modules/catalog/domain/catalog.repository.js';
import { CATEGORIES, DEMO_MP3, importCatalog, manifest, manifestNovel } from '../fixtures/catalog-fixture.js';
import { statementsDuring } from '../fixtures/query-counter.js';
import { useTestApp, startTestApp } from '../support/test-app.js';
import { createTestDatabase } from '../support/test-database.js';

const t = useTestApp();
let db: DataSource;

beforeAll(async () => {
  db = t.app.get(DataSource);
});

/** Every catalog row of an environment, to compare before and after. */
async function catalogRows(environment = 'live') {
  const [rows] = await db.query(
    `SELECT (SELECT coalesce(jsonb_agg(to_jsonb(c) ORDER BY id), '[]') FROM categories c WHERE environment = $1) AS categories,
            (SELECT coalesce(jsonb_agg(to_jsonb(n) ORDER BY id), '[]') FROM novels n WHERE environment = $1) AS novels,
            (SELECT coalesce(jsonb_agg(to_jsonb(c) ORDER BY novel_id, number), '[]') FROM chapters c WHERE environment = $1) AS chapters,
            (SELECT coalesce(jsonb_agg(to_jsonb(e) ORDER BY novel_id, choice_id), '[]') FROM endings e WHERE environment = $1) AS endings`,
    [environment],
  );
  return rows;
}

const runCli = async (argv: string[]) =>
  COMMANDS['catalog:import'].run(t.app, await COMMANDS['catalog:import'].check(parseArguments(argv, COMMANDS['catalog:import'].options)));

function writeManifest(content: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), 'prl-manifest-')), 'manifest.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

describe('the demo catalog', () => {
  it('is loaded into the sandbox on start: 6 novels in 3 categories, with chapters, 2 to 3 endings and narration', async () => {
    const { categories, novels, chapters, endings } = await catalogRows('sandbox');
    expect(categories).toHaveLength(3);
    expect(novels).toHaveLength(6);
    expect(novels.every((n: { status: string }) => n.status === 'published')).toBe(true);
    for (const novel of novels) {
      const own = chapters.filter((c: { novel_id: string }) => c.novel_id === novel.id);
      expect(own.length).toBeGreaterThanOrEqual(3);
      expect(novel.total_chapters).toBe(own.length);
      expect(endings.filter((e: { novel_id: string }) => e.novel_id === novel.id).length).toBeGreaterThanOrEqual(2);
    }
    expect(chapters.every((c: { audio_status: string; audio_key: string | null }) => c.audio_status === 'ready' && c.audio_key !== null)).toBe(true);
    expect(novels.every((n: { has_audio: boolean }) => n.has_audio)).toBe(true);
  });

  it('is loaded exactly once when several replicas start together on an empty database', async () => {
    const url = await createTestDatabase();
    const replicas = await Promise.all([startTestApp({}, url), startTestApp({}, url)]);
    try {
      const [counts] = await replicas[0].app.get(DataSource).query(
        `SELECT (SELECT count(*) FROM novels WHERE environment = 'sandbox')::int AS novels,
                (SELECT count(*) FROM chapters WHERE environment = 'sandbox')::int AS chapters`,
      );
      const demo = JSON.parse(readFileSync(demoManifestPath(), 'utf8'));
      expect(counts).toEqual({ novels: demo.novels.length, chapters: demo.novels.flatMap((n: { chapters: unknown[] }) => n.chapters).length });
      // The second replica found the catalog loaded: the novels were written once, not updated again.
      const [{ stamps }] = await replicas[0].app
        .get(DataSource)
        .query(`SELECT count(DISTINCT updated_at)::int AS stamps FROM novels WHERE environment = 'sandbox'`);
      expect(stamps).toBe(1);
    } finally {
      await Promise.all(replicas.map((r) => r.close()));
    }
  });

  it('is not loaded into a sandbox that already has a catalog', async () => {
    expect(await t.app.get(CatalogImportService).seedIfEmpty(demoManifestPath(), 'sandbox')).toBeNull();
  });
});

describe('catalog:import', () => {
  const base = () => manifest([manifestNovel('novel-one', { chapters: 4, endings: ['a', 'b', 'c'] }), manifestNovel('novel-two')]);

  it('is idempotent: importing the same manifest again changes nothing', async () => {
    const first = await importCatalog(t, base());
    expect(first).toEqual({ environment: 'live', categories: 2, novels: 2, chapters: 7, endings: 5, novelsChanged: 2 });
    const before = await catalogRows();
    const statements = await statementsDuring(t, async () => expect((await importCatalog(t, base())).novelsChanged).toBe(0));
    expect(await catalogRows()).toEqual(before);
    // Nor does it make every replica reload its catalog.
    expect(statements.filter((sql) => /pg_notify/.test(sql))).toEqual([]);
  });

  it('announces a change to every replica in the import transaction', async () => {
    const statements = await statementsDuring(t, () => importCatalog(t, manifest([manifestNovel('announced')])));
    expect(statements.filter((sql) => /pg_notify/.test(sql))).toHaveLength(1);
  });

  it("makes each listed novel's chapters and endings exactly the manifest's, and touches only what changed", async () => {
    await importCatalog(t, base());
    const before = await catalogRows();
    const changed = manifest([manifestNovel('novel-one', { chapters: 2, endings: ['b', 'd'] }), manifestNovel('novel-two')]);
    expect((await importCatalog(t, changed)).novelsChanged).toBe(1);
    const after = await catalogRows();
    const one = after.novels.find((n: { id: string }) => n.id === 'novel-one');
    expect(one.total_chapters).toBe(2);
    expect(one.updated_at).not.toBe(before.novels.find((n: { id: string }) => n.id === 'novel-one').updated_at);
    expect(after.novels.find((n: { id: string }) => n.id === 'novel-two')).toEqual(before.novels.find((n: { id: string }) => n.id === 'novel-two'));
    expect(after.chapters.filter((c: { novel_id: string }) => c.novel_id === 'novel-one').map((c: { number: number }) => c.number)).toEqual([1, 2]);
    expect(after.endings.filter((e: { novel_id: string }) => e.novel_id === 'novel-one').map((e: { choice_id: string }) => e.choice_id)).toEqual(['b', 'd']);
    await importCatalog(t, base());
  });

  it.each([
    ['not an object', 'the manifest', []],
    ['no novels', 'novels', { categories: CATEGORIES }],
    ['an unknown top-level field', 'extra', { ...base(), extra: 1 }],
    ['a bad novel id', 'novels[0].id', manifest([{ ...manifestNovel('ok'), id: 'Bad Id' }])],
    ['a misspelt field', 'novels[1].synopsys', manifest([manifestNovel('ok'), { ...manifestNovel('ok-2'), synopsys: 'x' }])],
    ['a missing title', 'novels[1].title', manifest([manifestNovel('ok'), { ...manifestNovel('ok-2'), title: '' }])],
    ['a bad status', 'novels[0].status', manifest([{ ...manifestNovel('ok'), status: 'draft' }])],
    ['a duplicate novel', 'novels[1].id', manifest([manifestNovel('same'), manifestNovel('same')])],
    [
      'a chapter gap',
      'novels[0].chapters',
      manifest([{ ...manifestNovel('ok'), chapters: manifestNovel('ok', { chapters: 3 }).chapters.filter((c) => c.number !== 2) }]),
    ],
    [
      'a duplicate chapter number',
      'novels[0].chapters[1].number',
      manifest([{ ...manifestNovel('ok'), chapters: [...manifestNovel('ok', { chapters: 1 }).chapters, ...manifestNovel('ok', { chapters: 1 }).chapters] }]),
    ],
    [
      'a negative duration',
      'novels[0].chapters[0].duration_seconds',
      manifest([{ ...manifestNovel('ok'), chapters: [{ ...manifestNovel('ok').chapters[0], duration_seconds: -1 }] }]),
    ],
    [
      'a NUL in a body',
      'novels[0].chapters[0].body',
      manifest([{ ...manifestNovel('ok'), chapters: [{ ...manifestNovel('ok').chapters[0], body: 'a\u0000b' }] }]),
    ],
    ['no endings', 'novels[0].endings', manifest([manifestNovel('ok', { endings: [] })])],
    ['a duplicate ending', 'novels[0].endings[1].choice_id', manifest([manifestNovel('ok', { endings: ['x', 'x'] })])],
    ['an unknown audio status', 'novels[0].chapters[0].audio.status', manifest([manifestNovel('ok', { audio: { file: DEMO_MP3, status: 'done' } })])],
    ['ready audio without a file', 'novels[0].chapters[0].audio.file', manifest([manifestNovel('ok', { audio: { status: 'ready' } })])],
    ['audio with neither file nor status', 'novels[0].chapters[0].audio.status', manifest([manifestNovel('ok', { audio: {} })])],
    ['an audio file that is not an mp3', 'novels[0].chapters[0].audio.file', manifest([manifestNovel('ok', { audio: { file: 'package.json' } })])],
    ['an audio file outside the manifest directory', 'novels[0].chapters[0].audio.file', manifest([manifestNovel('ok', { audio: { file: '../x.mp3' } })])],
    ['a missing audio file', 'novels[0].chapters[0].audio.file', manifest([manifestNovel('ok', { audio: { file: 'missing.mp3' } })])],
    ['a bad cover_url', 'novels[0].cover_url', manifest([{ ...manifestNovel('ok'), cover_url: 'not a url' }])],
    ['an unknown category', 'novels[1].category_id', manifest([manifestNovel('ok'), manifestNovel('ok-2', { categoryId: 'horror' })])],
  ])('refuses a manifest with %s, naming %s, and changes nothing', async (_, field, content) => {
    await importCatalog(t, base());
    const before = await catalogRows();
    const failure = importCatalog(t, content);
    await expect(failure).rejects.toThrow(ManifestError);
    await expect(failure).rejects.toThrow(new RegExp(`^${field.replace(/[[\].]/g, '\\$&')} `));
    expect(await catalogRows()).toEqual(before);
  });

  it('accepts a category that exists already in the environment without listing it again', async () => {
    await importCatalog(t, base());
    await expect(importCatalog(t, manifest([manifestNovel('novel-three', { categoryId: 'mystery' })], []))).resolves.toMatchObject({ novels: 1 });
  });

  it('writes nothing when the database fails halfway through', async () => {
    await importCatalog(t, base());
    const before = await catalogRows();
    const repository = t.app.get(CatalogRepository);
    const failing = jest.spyOn(repository, 'upsertEndings').mockRejectedValueOnce(new Error('connection lost'));
    const changed = manifest(
      [manifestNovel('novel-one', { chapters: 9, title: 'Renamed' }), manifestNovel('novel-new')],
      [...CATEGORIES, { id: 'drama', name: 'Drama', sort_order: 3 }],
    );
    await expect(importCatalog(t, changed)).rejects.toThrow('connection lost');
    failing.mockRestore();
    expect(await catalogRows()).toEqual(before);
  });

  it('records the audio status of chapters with audio, and has_audio when every chapter is ready', async () => {
    await importCatalog(
      t,
      manifest([manifestNovel('narrated', { audio: { file: DEMO_MP3, status: 'ready' } }), manifestNovel('rendering', { audio: { status: 'rendering' } })]),
    );
    const { novels, chapters } = await catalogRows();
    expect(novels.find((n: { id: string }) => n.id === 'narrated').has_audio).toBe(true);
    expect(novels.find((n: { id: string }) => n.id === 'rendering').has_audio).toBe(false);
    expect(new Set(chapters.filter((c: { novel_id: string }) => c.novel_id === 'rendering').map((c: { audio_status: string }) => c.audio_status))).toEqual(
      new Set(['rendering']),
    );
  });

  describe('the command', () => {
    it('imports a manifest file into the sandbox with --sandbox and prints a summary', async () => {
      const file = writeManifest(manifest([manifestNovel('cli-novel', { chapters: 2 })]));
      await expect(runCli([file, '--sandbox'])).resolves.toEqual({
        environment: 'sandbox',
        categories: 2,
        novels: 1,
        chapters: 2,
        endings: 2,
        novels_changed: 1,
      });
      expect((await catalogRows('sandbox')).novels.map((n: { id: string }) => n.id)).toContain('cli-novel');
      expect((await catalogRows('live')).novels.map((n: { id: string }) => n.id)).not.toContain('cli-novel');
    });

    it('prints progress lines on stderr for a large manifest', async () => {
      const file = writeManifest(manifest(Array.from({ length: 6 }, (_, i) => manifestNovel(`long-${i}`, { chapters: 100 }))));
      const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
      try {
        await expect(runCli([file])).resolves.toMatchObject({ chapters: 600 });
        const lines = stderr.mock.calls.map(([line]) => String(line));
        expect(lines).toEqual(['catalog:import: 250/600 chapters\n', 'catalog:import: 500/600 chapters\n', 'catalog:import: 600/600 chapters\n']);
      } finally {
        stderr.mockRestore();
      }
    });

    it('refuses a malformed manifest as a usage error naming the field, and one that is not JSON', async () => {
      await expect(runCli([writeManifest(manifest([{ ...manifestNovel('x'), language: 42 }]))])).rejects.toThrow(
        new UsageError('invalid manifest, nothing imported: novels[0].language is required and must be a language tag such as pt-BR'),
      );
      await expect(runCli([writeManifest('{"novels": [')])).rejects.toThrow(/invalid manifest, nothing imported: the manifest is not valid JSON/);
      await expect(runCli([])).rejects.toThrow(UsageError);
    });
  });
});
