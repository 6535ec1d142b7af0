import { ApiProperty } from '@nestjs/swagger';
import { IsDefined } from 'class-validator';
import { IsSubscriberId } from '../../../shared/http/identifiers.js';
import { AUDIO_STATUSES, type AudioStatus, type ChapterNarration } from '../../catalog/index.js';
import type { ChapterStream, NovelNarration } from '../application/audio.service.js';

export class StreamQueryDto {
  @ApiProperty({ description: "Partner's subscriber identifier: resolves the entitlement and the drip, and is recorded in the audit log.", example: 'sub-42' })
  @IsDefined({ message: 'subscriber_id is required' })
  @IsSubscriberId()
  subscriber_id: string;
}

/** Stream response (contract 2): exactly these four fields. */
export class StreamResponseDto {
  @ApiProperty({
    format: 'uri',
    description:
      "Signed, short-lived URL to the chapter's mp3 file; it carries no token or secret. Do not cache or reuse it after expiry: request a new one. Supports HTTP Range requests.",
  })
  stream_url: string;

  @ApiProperty({ type: 'integer', example: 1200, description: 'Seconds until stream_url expires.' })
  expires_in: number;

  @ApiProperty({ enum: ['mp3', 'hls', 'dash'], example: 'mp3', description: 'Always mp3 today: one fixed-bitrate file per chapter.' })
  format: 'mp3' | 'hls' | 'dash';

  @ApiProperty({ type: 'integer', nullable: true, example: 380, description: 'Duration of the audio, read from the file at import.' })
  duration_seconds: number | null;
}

/** A chapter's narration [ext] (DECISIONS 11). */
export class ChapterAudioDto {
  @ApiProperty({ type: 'integer', example: 1, description: '1-indexed.' })
  chapter_number: number;

  @ApiProperty({ enum: AUDIO_STATUSES, description: 'ready: the stream endpoint serves it; any other value answers it 404 audio_not_ready.' })
  audio_status: AudioStatus;

  @ApiProperty({ type: String, enum: ['mp3'], nullable: true, description: 'mp3 once an audio file is imported, else null.' })
  format: 'mp3' | null;

  @ApiProperty({ type: 'integer', nullable: true, example: 380, description: 'Read from the audio file at import; null until one is imported.' })
  duration_seconds: number | null;

  @ApiProperty({ type: 'integer', nullable: true, example: 64, description: 'Constant bitrate of the audio file, in kbit/s; null until one is imported.' })
  bitrate_kbps: number | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'Always null: narration is one pre-recorded voice per chapter; selectable voices are roadmap.',
  })
  voice_id: null;
}

/** The narration of every chapter of a novel [ext]. */
export class NovelAudioDto {
  @ApiProperty({ example: 'the-heir' })
  novel_id: string;

  @ApiProperty({ type: [ChapterAudioDto], description: 'Every chapter, in chapter order.' })
  chapters: ChapterAudioDto[];
}

export const streamResponseDto = (stream: ChapterStream): StreamResponseDto => ({
  stream_url: stream.url,
  expires_in: stream.expiresIn,
  format: 'mp3',
  duration_seconds: stream.durationSeconds,
});

export const chapterAudioDto = ({ number, audio }: ChapterNarration): ChapterAudioDto => ({
  chapter_number: number,
  audio_status: audio.status,
  format: audio.key === null ? null : 'mp3',
  duration_seconds: audio.durationSeconds,
  bitrate_kbps: audio.bitrateKbps,
  voice_id: null,
});

export const novelAudioDto = ({ novel, chapters }: NovelNarration): NovelAudioDto => ({
  novel_id: novel.id,
  chapters: chapters.map(chapterAudioDto),
});
