import { Controller, Get, Header, Param, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiForbiddenResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ErrorBodyDto } from '../../../shared/http/error-body.dto.js';
import { Extension } from '../../../shared/http/extension.decorator.js';
import { chapterNumberPipe, novelIdPipe } from '../../../shared/http/identifiers.js';
import { readingPaths } from '../../../shared/http/surfaces.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { CurrentTenant, RequireScopes } from '../../identity/index.js';
import { ChapterReadingService } from '../application/chapter-reading.service.js';
import { SubscriberQueryDto } from '../../../shared/http/subscriber-query.dto.js';
import { chapterListingJson } from './chapter-listing.json.js';
import { ChapterContentDto, chapterContentDto, ChapterListingDto, OptionalSubscriberQueryDto } from './reading.dto.js';

const novelId = () => Param('id', novelIdPipe());
const NOVEL_NOT_FOUND = { type: ErrorBodyDto, description: 'invalid_request: novel does not exist or was removed' };

@ApiTags('Chapters and endings')
@Controller(readingPaths('novels/:id'))
export class NovelReadingController {
  constructor(private readonly chapters: ChapterReadingService) {}

  @Get('chapters')
  @RequireScopes('textapp:catalog:read', 'audioapp:audio:read')
  @ApiOperation({
    summary: 'Chapter list, optional release state',
    description:
      "Without subscriber_id: editorial metadata only. With it: each chapter's status (unlocked, locked, not_started) and, when locked, an estimated unlocks_at.",
  })
  @ApiOkResponse({ type: ChapterListingDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto })
  @ApiNotFoundResponse(NOVEL_NOT_FOUND)
  @Header('content-type', 'application/json; charset=utf-8')
  async listing(@CurrentTenant() tenant: Tenant, @novelId() id: string, @Query() query: OptionalSubscriberQueryDto): Promise<string> {
    return chapterListingJson(await this.chapters.listing(tenant, id, query.subscriber_id));
  }

  @Get('chapters/:chapterNumber/content')
  @RequireScopes('textapp:content:read')
  @Extension()
  @ApiOperation({
    summary: 'Chapter text (markdown)',
    description: 'Needs an active reading entitlement and a released chapter. Records reading activity and advances current_chapter.',
  })
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
    return chapterContentDto(id, await this.chapters.content(tenant, id, chapterNumber, query.subscriber_id));
  }
}
