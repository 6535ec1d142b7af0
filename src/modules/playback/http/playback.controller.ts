import { applyDecorators, Body, Controller, Get, Param, Put, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ErrorBodyDto } from '../../../shared/http/error-body.dto.js';
import { subscriberIdPipe } from '../../../shared/http/identifiers.js';
import { HeldKey } from '../../../shared/http/idempotency-key.js';
import { jsonAnswer, type HeldIdempotencyKey } from '../../../shared/idempotency/keyed-answer.js';
import { readingPaths } from '../../../shared/http/surfaces.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { CurrentTenant, RequireScopes } from '../../identity/index.js';
import { PlaybackService } from '../application/playback.service.js';
import type { PlaybackPosition } from '../domain/playback-position.js';
import { PlaybackPositionDto, playbackPositionDto, PlaybackPositionQueryDto, PlaybackPositionWriteDto } from './playback.dto.js';
import { TakesIdempotencyKey } from '../../idempotency/index.js';

const subscriberId = () => Param('id', subscriberIdPipe('subscriber id'));
const BAD_REQUEST = { type: ErrorBodyDto, description: 'invalid_request: malformed parameter or body, or the chapter is not yet released for the subscriber' };

const READ = {
  summary: 'Read listening position',
  description:
    "The subscriber's last stored position in the novel. 404 not_found while none is stored; 400 when the stored chapter is no longer released (the plan lost early access).",
};
const WRITE = {
  summary: 'Upsert listening position',
  description:
    'One record per (subscriber, novel): a new write replaces the previous one, and repeating a call is safe. Records listening activity and advances current_chapter.',
};
/** The answers of each operation, shared by the declared path and its alias, so the two never differ. */
const READ_ANSWERS = applyDecorators(
  ApiOkResponse({ type: PlaybackPositionDto }),
  ApiBadRequestResponse(BAD_REQUEST),
  ApiNotFoundResponse({ type: ErrorBodyDto, description: 'invalid_request: novel does not exist or was removed; not_found: no stored position' }),
);
const WRITE_ANSWERS = applyDecorators(
  ApiOkResponse({ type: PlaybackPositionDto }),
  ApiBadRequestResponse(BAD_REQUEST),
  ApiNotFoundResponse({ type: ErrorBodyDto, description: 'invalid_request: novel does not exist or was removed' }),
);
const alias = (method: string, operation: { summary: string; description: string }) => ({
  summary: `Alias of ${method} /subscribers/{id}/playback-position (DECISIONS 13)`,
  description: `${operation.description} The same operation as ${method} /subscribers/{id}/playback-position, at the singular path.`,
});

/** Listening position (contract 4.1, DECISIONS 12); the singular paths are aliases (DECISIONS 13). */
@ApiTags('Playback position')
@Controller(readingPaths())
export class PlaybackController {
  constructor(private readonly playback: PlaybackService) {}

  @Get('subscribers/:id/playback-position')
  @RequireScopes('audioapp:playback:read')
  @ApiOperation(READ)
  @READ_ANSWERS
  async read(@CurrentTenant() tenant: Tenant, @subscriberId() id: string, @Query() query: PlaybackPositionQueryDto): Promise<PlaybackPositionDto> {
    return playbackPositionDto(id, await this.playback.read(tenant, id, query.novel_id));
  }

  @Put('subscribers/:id/playback-position')
  @TakesIdempotencyKey({ answerStoredByWork: true })
  @RequireScopes('audioapp:playback:write')
  @ApiOperation(WRITE)
  @WRITE_ANSWERS
  async write(
    @CurrentTenant() tenant: Tenant,
    @subscriberId() id: string,
    @Body() body: PlaybackPositionWriteDto,
    @HeldKey() held?: HeldIdempotencyKey,
  ): Promise<PlaybackPositionDto> {
    const write = { novelId: body.novel_id, chapterId: body.chapter_id, positionSeconds: body.position_seconds };
    // Keyed, the answer is stored by the write's own statement (ADR 0144): the same bytes as this method returns.
    const keyed = held && { held, answerFor: (position: PlaybackPosition) => jsonAnswer(200, playbackPositionDto(id, position)) };
    return playbackPositionDto(id, await this.playback.write(tenant, id, write, keyed));
  }

  @Get('subscriber/:id/playback-position')
  @RequireScopes('audioapp:playback:read')
  @ApiOperation(alias('GET', READ))
  @READ_ANSWERS
  readAlias(@CurrentTenant() tenant: Tenant, @subscriberId() id: string, @Query() query: PlaybackPositionQueryDto): Promise<PlaybackPositionDto> {
    return this.read(tenant, id, query);
  }

  @Put('subscriber/:id/playback-position')
  @TakesIdempotencyKey({ answerStoredByWork: true })
  @RequireScopes('audioapp:playback:write')
  @ApiOperation(alias('PUT', WRITE))
  @WRITE_ANSWERS
  writeAlias(
    @CurrentTenant() tenant: Tenant,
    @subscriberId() id: string,
    @Body() body: PlaybackPositionWriteDto,
    @HeldKey() held?: HeldIdempotencyKey,
  ): Promise<PlaybackPositionDto> {
    return this.write(tenant, id, body, held);
  }
}
