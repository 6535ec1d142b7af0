import { applyDecorators, Body, Controller, Delete, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiForbiddenResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ErrorBodyDto } from '../../../shared/http/error-body.dto.js';
import { setCreatedLocation } from '../../../shared/http/location.js';
import { Extension } from '../../../shared/http/extension.decorator.js';
import { novelIdPipe, subscriberIdPipe } from '../../../shared/http/identifiers.js';
import { readingPaths } from '../../../shared/http/surfaces.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { CurrentTenant, RequireScopes } from '../../identity/index.js';
import { ReadingProgressService } from '../application/reading-progress.service.js';
import { OpenNovelDto, ProgressEntryDto, progressEntryDto, ReadingProgressDto, readingProgressDto } from './reading.dto.js';
import { TakesIdempotencyKey } from '../../idempotency/index.js';

const subscriberId = () => Param('id', subscriberIdPipe('subscriber id'));

const READING_PROGRESS = {
  summary: 'Consolidated reading progress',
  description: 'One entry per novel the subscriber has opened, newest first. Also served at /subscribers/{id}/reading-progress.',
};
/** Shared by the declared path and its alias, so the two never differ. */
const READING_PROGRESS_ANSWERS = applyDecorators(
  ApiOkResponse({ type: ReadingProgressDto }),
  ApiBadRequestResponse({ type: ErrorBodyDto, description: 'invalid_request: malformed subscriber id' }),
);

@ApiTags('Reading progress')
@Controller(readingPaths())
export class ReadingProgressController {
  constructor(private readonly reading: ReadingProgressService) {}

  @Get('subscriber/:id/reading-progress')
  @RequireScopes('textapp:progress:read')
  @ApiOperation(READING_PROGRESS)
  @READING_PROGRESS_ANSWERS
  async readingProgress(@CurrentTenant() tenant: Tenant, @subscriberId() id: string): Promise<ReadingProgressDto> {
    return readingProgressDto(await this.reading.readingProgress(tenant, id));
  }

  @Get('subscribers/:id/reading-progress')
  @RequireScopes('textapp:progress:read')
  @ApiOperation({
    summary: 'Alias of GET /subscriber/{id}/reading-progress (DECISIONS 13)',
    description: `${READING_PROGRESS.description} The same operation as GET /subscriber/{id}/reading-progress, at the plural path.`,
  })
  @READING_PROGRESS_ANSWERS
  readingProgressAlias(@CurrentTenant() tenant: Tenant, @subscriberId() id: string): Promise<ReadingProgressDto> {
    return this.readingProgress(tenant, id);
  }

  @Post('subscribers/:id/novels')
  @TakesIdempotencyKey()
  @RequireScopes('textapp:progress:write')
  @Extension()
  @ApiOperation({
    summary: 'Open a novel',
    description:
      'Starts the drip now (current_chapter 1). 201 when opened, 200 with the same entry when already in progress. At most 3 unfinished novels, under any concurrency.',
  })
  @ApiCreatedResponse({ type: ProgressEntryDto })
  @ApiOkResponse({ type: ProgressEntryDto, description: 'Already in progress.' })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: 'invalid_request: malformed body; started_at on /v1 or in the future' })
  @ApiForbiddenResponse({ type: ErrorBodyDto, description: 'subscriber_not_entitled: no active textapp or audioapp entitlement' })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'invalid_request: novel does not exist or was removed' })
  @ApiConflictResponse({ type: ErrorBodyDto, description: 'active_novel_limit_reached, novel_already_finished' })
  async open(
    @CurrentTenant() tenant: Tenant,
    @subscriberId() id: string,
    @Body() body: OpenNovelDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ProgressEntryDto> {
    const startedAt = body.started_at === undefined ? undefined : new Date(body.started_at);
    const { entry, created } = await this.reading.open(tenant, id, body.novel_id, startedAt);
    reply.status(created ? 201 : 200);
    if (created) setCreatedLocation(reply, body.novel_id);
    return progressEntryDto(entry);
  }

  @Delete('subscribers/:id/novels/:novel_id')
  @TakesIdempotencyKey()
  @HttpCode(204)
  @RequireScopes('textapp:progress:write')
  @Extension()
  @ApiOperation({ summary: 'Remove an unfinished novel', description: 'Also removes its playback position. Opening it again restarts the drip.' })
  @ApiNoContentResponse()
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: 'invalid_request: malformed subscriber id or novel id' })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'invalid_request: novel does not exist or was removed; not_found: the subscriber never opened it' })
  @ApiConflictResponse({ type: ErrorBodyDto, description: 'novel_already_finished' })
  async remove(@CurrentTenant() tenant: Tenant, @subscriberId() id: string, @Param('novel_id', novelIdPipe()) novelId: string): Promise<void> {
    await this.reading.remove(tenant, id, novelId);
  }
}
