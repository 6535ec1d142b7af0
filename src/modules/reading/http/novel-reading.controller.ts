import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiForbiddenResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ErrorBodyDto } from '../../../shared/http/error-body.dto.js';
import { Extension } from '../../../shared/http/extension.decorator.js';
import { chapterNumberPipe, novelIdPipe } from '../../../shared/http/identifiers.js';
import { readingPaths } from '../../../shared/http/surfaces.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { CurrentTenant, RequireScopes } from '../../identity/index.js';
import { ChapterReadingService } from '../application/chapter-reading.service.js';
import { EndingsService } from '../application/endings.service.js';
import {
  ChapterContentDto,
  ChapterListingDto,
  chapterListingDto,
  ChooseEndingDto,
  EndingsStateDto,
  endingsStateDto,
  OptionalSubscriberQueryDto,
  SubscriberQueryDto,
} from './reading.dto.js';

const novelId = () => Param('id', novelIdPipe());
const NOVEL_NOT_FOUND = { type: ErrorBodyDto, description: 'invalid_request: novel does not exist or was removed' };

@ApiTags('Chapters and endings')
@Controller(readingPaths('novels/:id'))
export class NovelReadingController {
  constructor(
    private readonly chapters: ChapterReadingService,
    private readonly endings: EndingsService,
  ) {}

  @Get('chapters')
  @RequireScopes('textapp:catalog:read', 'audioapp:audio:read')
  @ApiOperation({
    summary: 'Chapter list, optional release state',
    description: 'Without subscriber_id: editorial metadata only. With it: each chapter\'s status (unlocked, locked, not_started) and, when locked, an estimated unlocks_at.',
  })
  @ApiOkResponse({ type: ChapterListingDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto })
  @ApiNotFoundResponse(NOVEL_NOT_FOUND)
  async listing(@CurrentTenant() tenant: Tenant, @novelId() id: string, @Query() query: OptionalSubscriberQueryDto): Promise<ChapterListingDto> {
    return chapterListingDto(await this.chapters.listing(tenant, id, query.subscriber_id));
  }

  @Get('chapters/:chapterNumber/content')
  @RequireScopes('textapp:content:read')
  @Extension()
  @ApiOperation({ summary: 'Chapter text (markdown)', description: 'Needs an active reading entitlement and a released chapter. Records reading activity and advances current_chapter.' })
  @ApiOkResponse({ type: ChapterContentDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto })
  @ApiForbiddenResponse({ type: ErrorBodyDto, description: 'subscriber_not_entitled, chapter_locked' })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'invalid_request: novel does not exist or was removed; not_found: no such chapter' })
  async content(
    @CurrentTenant() tenant: Tenant,
    @novelId() id: string,
    @Param('chapterNumber', chapterNumberPipe()) chapterNumber: number,
    @Query() query: SubscriberQueryDto,
  ): Promise<ChapterContentDto> {
    const chapter = await this.chapters.content(tenant, id, chapterNumber, query.subscriber_id);
    return { novel_id: id, chapter_number: chapter.number, title: chapter.title, format: 'markdown', body: chapter.body };
  }

  @Get('choices')
  @RequireScopes('textapp:progress:read')
  @ApiOperation({ summary: 'Endings for a subscriber', description: 'available false and no choices until the last chapter is released for the subscriber: a normal state, not an error.' })
  @ApiOkResponse({ type: EndingsStateDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto })
  @ApiNotFoundResponse(NOVEL_NOT_FOUND)
  async state(@CurrentTenant() tenant: Tenant, @novelId() id: string, @Query() query: SubscriberQueryDto): Promise<EndingsStateDto> {
    return endingsStateDto(await this.endings.state(tenant, id, query.subscriber_id));
  }

  @Post('choices')
  @HttpCode(200)
  @RequireScopes('textapp:progress:write')
  @Extension()
  @ApiOperation({
    summary: 'Choose the ending and finish the novel',
    description: 'Sets chosen_choice_id and finished_at and emits novel.finished in the same transaction. Repeating the same choice answers 200 and emits nothing.',
  })
  @ApiOkResponse({ type: EndingsStateDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: 'invalid_request: malformed body or unknown choice_id' })
  @ApiNotFoundResponse(NOVEL_NOT_FOUND)
  @ApiConflictResponse({ type: ErrorBodyDto, description: 'novel_not_started, endings_not_available, ending_already_chosen' })
  async choose(@CurrentTenant() tenant: Tenant, @novelId() id: string, @Body() body: ChooseEndingDto): Promise<EndingsStateDto> {
    return endingsStateDto(await this.endings.choose(tenant, id, body.subscriber_id, body.choice_id));
  }
}
