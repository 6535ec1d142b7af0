import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiForbiddenResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ErrorBodyDto } from '../../../shared/http/error-body.dto.js';
import { Extension } from '../../../shared/http/extension.decorator.js';
import { chapterNumberPipe, novelIdPipe } from '../../../shared/http/identifiers.js';
import { readingPaths } from '../../../shared/http/surfaces.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { CurrentPrincipal, CurrentTenant, RequireScopes, type Principal } from '../../identity/index.js';
import { AudioService } from '../application/audio.service.js';
import { ChapterAudioDto, chapterAudioDto, NovelAudioDto, novelAudioDto, StreamQueryDto, StreamResponseDto, streamResponseDto } from './audio.dto.js';

const novelId = () => Param('id', novelIdPipe());
// Malformed identifiers are refused (400) before anything is looked up, as on every route.
const chapterNumber = () => Param('chapterNumber', chapterNumberPipe());
const CHAPTER_NUMBER_PARAM = { name: 'chapterNumber', schema: { type: 'integer', minimum: 1 }, description: '1-indexed.' } as const;
const NOVEL_PARAM = { name: 'id', description: 'Novel slug.', example: 'the-heir' } as const;
const NOT_FOUND = 'invalid_request: the novel does not exist or was removed; not_found: the novel has no such chapter';

@ApiTags('Audio')
@Controller(readingPaths('novels/:id'))
export class AudioController {
  constructor(private readonly audio: AudioService) {}

  @Get('chapters/:chapterNumber/stream')
  @RequireScopes('audioapp:audio:read')
  @ApiOperation({
    summary: 'Signed audio URL',
    description: [
      "A short-lived signed URL to the chapter's mp3, for a subscriber whose plan includes audio and to whom the drip has released the chapter.",
      'Malformed parameters are refused first (400). Then, in this order: the novel exists (404 invalid_request) and has the chapter (404 not_found);',
      'the plan includes audio (403 plan_without_audio) and the chapter is released (403 chapter_locked); the audio is rendered (404 audio_not_ready).',
      'Every URL issued is recorded in an audit log with the subscriber and the calling client.',
    ].join(' '),
  })
  @ApiParam(NOVEL_PARAM)
  @ApiParam(CHAPTER_NUMBER_PARAM)
  @ApiOkResponse({ type: StreamResponseDto })
  @ApiBadRequestResponse({
    type: ErrorBodyDto,
    description: 'invalid_request: subscriber_id missing or malformed, chapter number not an integer of at least 1, or an unknown parameter',
  })
  @ApiForbiddenResponse({ type: ErrorBodyDto, description: 'plan_without_audio, chapter_locked (also when the subscriber has not opened the novel)' })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: `${NOT_FOUND}; audio_not_ready: the chapter's audio_status is not ready` })
  async stream(
    @CurrentPrincipal() caller: Principal,
    @novelId() id: string,
    @chapterNumber() chapter: number,
    @Query() query: StreamQueryDto,
  ): Promise<StreamResponseDto> {
    return streamResponseDto(await this.audio.streamUrl(caller, id, chapter, query.subscriber_id));
  }

  @Get('audio')
  @RequireScopes('audioapp:audio:read')
  @Extension()
  @ApiOperation({
    summary: 'Audio metadata of every chapter',
    description: "Each chapter's render status, format, duration and bitrate (read from the mp3 at import). Editorial metadata: not gated by the drip.",
  })
  @ApiParam(NOVEL_PARAM)
  @ApiOkResponse({ type: NovelAudioDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: 'invalid_request: malformed novel id, or a query parameter (there are none)' })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'invalid_request: the novel does not exist or was removed' })
  async novelAudio(@CurrentTenant() tenant: Tenant, @novelId() id: string): Promise<NovelAudioDto> {
    return novelAudioDto(await this.audio.novelNarration(tenant.environment, id));
  }

  @Get('chapters/:chapterNumber/audio')
  @RequireScopes('audioapp:audio:read')
  @Extension()
  @ApiOperation({
    summary: 'Audio metadata of one chapter',
    description: "The chapter's render status, format, duration and bitrate (read from the mp3 at import). Editorial metadata: not gated by the drip.",
  })
  @ApiParam(NOVEL_PARAM)
  @ApiParam(CHAPTER_NUMBER_PARAM)
  @ApiOkResponse({ type: ChapterAudioDto })
  @ApiBadRequestResponse({
    type: ErrorBodyDto,
    description: 'invalid_request: chapter number not an integer of at least 1, malformed novel id, or a query parameter (there are none)',
  })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: NOT_FOUND })
  async chapterAudio(@CurrentTenant() tenant: Tenant, @novelId() id: string, @chapterNumber() chapter: number): Promise<ChapterAudioDto> {
    return chapterAudioDto(await this.audio.chapterNarration(tenant.environment, id, chapter));
  }
}
