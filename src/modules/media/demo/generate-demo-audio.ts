import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chaptersOfArguments, chaptersOfManifest, DEMO_AUDIO_DIR, DEMO_MANIFEST_PATH } from './demo-audio-targets.js';
import { demoFileName, renderDemoNarration, type DemoChapter } from './demo-narration.js';

/**
 * `npm run demo:audio` writes the demo narration into catalog/demo/audio, run from the
 * project root:
 * - with no arguments, for every chapter of catalog/demo/manifest.json, and removes the
 *   mp3 files of chapters the manifest no longer has;
 * - with `novel-id:count …` arguments, for those chapters only, removing nothing.
 * The output is deterministic: an unchanged chapter is rewritten with the same bytes.
 */
function main(args: string[]): void {
  const fromManifest = args.length === 0;
  if (fromManifest && !existsSync(DEMO_MANIFEST_PATH)) {
    throw new Error(`${DEMO_MANIFEST_PATH} does not exist; name the chapters instead: npm run demo:audio -- novel-id:count …`);
  }
  const chapters = fromManifest ? chaptersOfManifest(JSON.parse(readFileSync(DEMO_MANIFEST_PATH, 'utf8'))) : chaptersOfArguments(args);
  mkdirSync(DEMO_AUDIO_DIR, { recursive: true });
  let bytes = 0;
  for (const chapter of chapters) {
    const audio = renderDemoNarration(chapter);
    writeFileSync(join(DEMO_AUDIO_DIR, demoFileName(chapter)), audio);
    bytes += audio.length;
  }
  const removed = fromManifest ? removeOthers(chapters) : [];
  process.stdout.write(
    `${chapters.length} files (${bytes} bytes) written to ${DEMO_AUDIO_DIR}` + (removed.length ? `; removed ${removed.join(', ')}` : '') + '\n',
  );
}

function removeOthers(chapters: DemoChapter[]): string[] {
  const kept = new Set(chapters.map(demoFileName));
  const stale = readdirSync(DEMO_AUDIO_DIR).filter((name) => name.endsWith('.mp3') && !kept.has(name));
  for (const name of stale) rmSync(join(DEMO_AUDIO_DIR, name));
  return stale;
}

try {
  main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`demo:audio: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
