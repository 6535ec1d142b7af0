import { readFileSync } from 'node:fs';
import { DataSource } from 'typeorm';
import { manifestNovel } from '../fixtures/catalog-fixture.js';
import type { PartnerClient } from '../fixtures/partner-client.js';
import type { TestApp } from '../support/test-app.js';

/** A committed demo narration (a real 32 kbps CBR mp3), as a manifest path relative to the project root. */
export const demoMp3 = (novelId: string, chapterNumber: number) => `catalog/demo/audio/${novelId}-${chapterNumber}.mp3`;
export const demoMp3Bytes = (novelId: string, chapterNumber: number) => readFileSync(demoMp3(novelId, chapterNumber));

type ChapterAudio = { file?: string; status?: string } | undefined;

/** A manifest novel whose chapter i gets `audio[i]` (no audio field when undefined). */
export function narratedNovel(id: string, audio: ChapterAudio[], options: { status?: 'published' | 'removed' } = {}) {
  const novel = manifestNovel(id, { chapters: audio.length, status: options.status });
  return { ...novel, chapters: novel.chapters.map((chapter, i) => ({ ...chapter, ...(audio[i] && { audio: audio[i] }) })) };
}

/**
 * Gives the subscriber an entitlement and opens the novel for it; with `startedAt`, the drip
 * counts from then (the sandbox takes it in the body; on live it is set in the database).
 */
export async function reader(
  t: TestApp,
  client: PartnerClient,
  subscriberId: string,
  novelId: string,
  options: { product?: string; plan?: string; startedAt?: Date } = {},
) {
  await client.entitle(subscriberId, { product: options.product ?? 'audioapp', plan: options.plan });
  const onSandbox = client.environment === 'sandbox' && options.startedAt;
  const opened = await client.call('POST', `/subscribers/${subscriberId}/novels`, {
    novel_id: novelId,
    ...(onSandbox && { started_at: options.startedAt!.toISOString() }),
  });
  if (opened.statusCode !== 201) throw new Error(`open failed: ${opened.statusCode} ${opened.body}`);
  if (options.startedAt && !onSandbox) {
    await t.app
      .get(DataSource)
      .query(`UPDATE novel_progress SET started_at = $4 WHERE partner_id = $1 AND environment = $2 AND subscriber_id = $3 AND novel_id = $5`, [
        client.partnerId,
        client.environment,
        subscriberId,
        options.startedAt,
        novelId,
      ]);
  }
}

export const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000);

/** The stream_url as a path for inject: the service answers it whatever origin it was given. */
export function pathOf(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
}
