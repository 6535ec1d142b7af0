import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { IsDefined, IsString } from 'class-validator';
import { IsIsoInstant } from '../../../shared/http/date-time.js';
import { IsNovelId, IsSubscriberId } from '../../../shared/http/identifiers.js';
import type { ProgressEntry, ReadingProgress } from '../application/reading-progress.service.js';
import type { Chapter } from '../../catalog/index.js';
import type { ChapterListing } from '../application/chapter-reading.service.js';
import { chapterStatus } from '../domain/novel-progress.js';
import { MayBeOmitted } from '../../../shared/http/may-be-omitted.js';

export class OptionalSubscriberQueryDto {
  @ApiPropertyOptional({ description: "Partner's subscriber identifier: adds each chapter's release state.", example: 'sub-42' })
  @MayBeOmitted()
  @IsSubscriberId()
  subscriber_id?: string;
}

export class OpenNovelDto {
  @ApiProperty({ example: 'the-heir' })
  @IsDefined({ message: 'novel_id is required' })
  @IsString({ message: 'novel_id must be a string' })
  @IsNovelId()
  novel_id: string;

  @ApiPropertyOptional({
    format: 'date-time',
    description: 'Sandbox only: a past instant to start the drip from, to test it without waiting days. Refused on /v1.',
    // The /v1 document leaves the field out (shared/http/openapi/request-bodies.ts).
    'x-sandbox-only': true,
  } as ApiPropertyOptions)
  @MayBeOmitted()
  @IsIsoInstant('started_at')
  started_at?: string;
}

export class ProgressEntryDto {
  @ApiProperty() novel_id: string;
  @ApiProperty() title: string;
  @ApiProperty({ format: 'date-time' }) started_at: string;
  @ApiProperty({ type: 'integer', description: 'Furthest chapter read or listened to.' }) current_chapter: number;
  @ApiProperty({ type: 'integer', description: 'Chapters released by the drip now.' }) unlocked_chapters: number;
  @ApiProperty({ type: 'integer' }) total_chapters: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'null while in progress.' }) finished_at: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'null until an ending is chosen.' }) chosen_choice_id: string | null;
}

export class ReadingProgressDto {
  @ApiProperty() subscriber_id: string;
  @ApiProperty({ type: 'integer', description: 'Novels in progress now (finished_at null).' }) active_novel_count: number;
  @ApiProperty({ type: 'integer', example: 3 }) active_novel_limit: number;
  @ApiProperty({ type: [ProgressEntryDto], description: 'Every novel the subscriber has opened, newest first.' }) novels: ProgressEntryDto[];
}

export class ChapterEntryDto {
  @ApiProperty({ type: 'integer', description: '1-indexed.' }) chapter_number: number;
  @ApiProperty() title: string;
  @ApiProperty({ type: 'integer', description: 'Estimated duration.' }) duration_seconds: number;
  @ApiPropertyOptional({ enum: ['unlocked', 'locked', 'not_started'], description: 'Only with subscriber_id.' }) status?: string;
  @ApiPropertyOptional({ format: 'date-time', description: 'Only with subscriber_id, for a locked chapter: an estimate from the drip.' }) unlocks_at?: string;
}

export class ChapterListingDto {
  @ApiProperty() novel_id: string;
  @ApiProperty({ type: 'integer' }) total_chapters: number;
  @ApiProperty({ type: [ChapterEntryDto] }) chapters: ChapterEntryDto[];
}

export class ChapterContentDto {
  @ApiProperty() novel_id: string;
  @ApiProperty({ type: 'integer' }) chapter_number: number;
  @ApiProperty() title: string;
  @ApiProperty({ enum: ['markdown'] }) format: 'markdown';
  @ApiProperty() body: string;
}

export const progressEntryDto = ({ novel, progress, unlockedChapters }: ProgressEntry): ProgressEntryDto => ({
  novel_id: novel.id,
  title: novel.title,
  started_at: progress.startedAt.toISOString(),
  current_chapter: progress.currentChapter,
  unlocked_chapters: unlockedChapters,
  total_chapters: novel.totalChapters,
  finished_at: progress.finishedAt?.toISOString() ?? null,
  chosen_choice_id: progress.chosenChoiceId,
});

export const readingProgressDto = (progress: ReadingProgress): ReadingProgressDto => ({
  subscriber_id: progress.subscriberId,
  active_novel_count: progress.activeNovelCount,
  active_novel_limit: progress.activeNovelLimit,
  novels: progress.entries.map(progressEntryDto),
});

export const chapterListingDto = ({ novel, chapters, releases }: ChapterListing): ChapterListingDto => ({
  novel_id: novel.id,
  total_chapters: novel.totalChapters,
  chapters: chapters.map(({ number, title, durationSeconds }, i) => ({
    chapter_number: number,
    title,
    duration_seconds: durationSeconds,
    ...(releases && { status: chapterStatus(releases[i]) }),
    ...(releases?.[i].unlocksAt && { unlocks_at: releases[i].unlocksAt.toISOString() }),
  })),
});

export const chapterContentDto = (novelId: string, chapter: Chapter): ChapterContentDto => ({
  novel_id: novelId,
  chapter_number: chapter.number,
  title: chapter.title,
  format: 'markdown',
  body: chapter.body,
});
