import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsInt, IsString, Length, Matches, Max, Min } from 'class-validator';
import { IsNovelId } from '../../../shared/http/identifiers.js';
import { CHAPTER_ID_PATTERN, chapterIdOf } from '../../catalog/index.js';
import { MAX_POSITION_SECONDS, type PlaybackPosition } from '../domain/playback-position.js';

const POSITION_RULE = `position_seconds must be an integer from 0 to ${MAX_POSITION_SECONDS}`;

export class PlaybackPositionQueryDto {
  @ApiProperty({ description: 'The novel whose position to read (one record per subscriber and novel).', example: 'the-heir' })
  @IsDefined({ message: 'novel_id is required' })
  @IsNovelId()
  novel_id: string;
}

export class PlaybackPositionWriteDto {
  @ApiProperty({ example: 'the-heir' })
  @IsDefined({ message: 'novel_id is required' })
  @IsString({ message: 'novel_id must be a string' })
  @IsNovelId()
  novel_id: string;

  @ApiProperty({ description: 'A chapter of novel_id in the player catalog format {novel_id}-ch{n}.', example: 'the-heir-ch2' })
  @IsDefined({ message: 'chapter_id is required' })
  @IsString({ message: 'chapter_id must be a string' })
  @Length(1, 120, { message: 'chapter_id must be 1 to 120 characters' })
  @Matches(CHAPTER_ID_PATTERN, { message: 'chapter_id must be {novel_id}-ch{n}, e.g. the-heir-ch2' })
  chapter_id: string;

  @ApiProperty({ type: 'integer', minimum: 0, maximum: MAX_POSITION_SECONDS, example: 95 })
  @IsDefined({ message: 'position_seconds is required' })
  @IsInt({ message: POSITION_RULE })
  @Min(0, { message: POSITION_RULE })
  @Max(MAX_POSITION_SECONDS, { message: POSITION_RULE })
  position_seconds: number;
}

export class PlaybackPositionDto {
  @ApiProperty({ description: 'Subscriber identifier in the partner system.' }) subscriber_id: string;
  @ApiProperty() novel_id: string;
  @ApiProperty({ example: 'the-heir-ch2' }) chapter_id: string;
  @ApiProperty({ type: 'integer' }) position_seconds: number;
  @ApiProperty({ format: 'date-time', description: 'Time of last write.' }) updated_at: string;
}

export const playbackPositionDto = (subscriberId: string, position: PlaybackPosition): PlaybackPositionDto => ({
  subscriber_id: subscriberId,
  novel_id: position.novelId,
  chapter_id: chapterIdOf(position.novelId, position.chapterNumber),
  position_seconds: position.positionSeconds,
  updated_at: position.updatedAt.toISOString(),
});
