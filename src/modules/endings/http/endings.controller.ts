import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiForbiddenResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ErrorBodyDto } from '../../../shared/http/error-body.dto.js';
import { Extension } from '../../../shared/http/extension.decorator.js';
import { novelIdPipe } from '../../../shared/http/identifiers.js';
import { readingPaths } from '../../../shared/http/surfaces.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { CurrentTenant, RequireScopes } from '../../identity/index.js';
import { SubscriberQueryDto } from '../../../shared/http/subscriber-query.dto.js';
import { EndingsService } from '../application/endings.service.js';
import { ChooseEndingDto, EndingsStateDto, endingsStateDto } from './endings.dto.js';
import { TakesIdempotencyKey } from '../../idempotency/index.js';

const novelId = () => Param('id', novelIdPipe());
const NOVEL_NOT_FOUND = { type: ErrorBodyDto, description: 'invalid_request: novel does not exist or was removed' };

@ApiTags('Chapters and endings')
@Controller(readingPaths('novels/:id'))
export class EndingsController {
  constructor(private readonly endings: EndingsService) {}

  @Get('choices')
  @RequireScopes('textapp:progress:read')
  @ApiOperation({
    summary: 'Endings for a subscriber',
    description: 'available false and no choices until the last chapter is released for the subscriber: a normal state, not an error.',
  })
  @ApiOkResponse({ type: EndingsStateDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto })
  @ApiNotFoundResponse(NOVEL_NOT_FOUND)
  async state(@CurrentTenant() tenant: Tenant, @novelId() id: string, @Query() query: SubscriberQueryDto): Promise<EndingsStateDto> {
    return endingsStateDto(await this.endings.state(tenant, id, query.subscriber_id));
  }

  @Post('choices')
  @TakesIdempotencyKey()
  @HttpCode(200)
  @RequireScopes('textapp:progress:write')
  @Extension()
  @ApiOperation({
    summary: 'Choose the ending and finish the novel',
    description:
      'Needs an active reading entitlement. Sets chosen_choice_id and finished_at and emits novel.finished in the same transaction. Repeating the same choice answers 200 and emits nothing.',
  })
  @ApiOkResponse({ type: EndingsStateDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: 'invalid_request: malformed body or unknown choice_id' })
  @ApiForbiddenResponse({ type: ErrorBodyDto, description: 'subscriber_not_entitled: no active textapp or audioapp entitlement' })
  @ApiNotFoundResponse(NOVEL_NOT_FOUND)
  @ApiConflictResponse({ type: ErrorBodyDto, description: 'novel_not_started, endings_not_available, ending_already_chosen' })
  async choose(@CurrentTenant() tenant: Tenant, @novelId() id: string, @Body() body: ChooseEndingDto): Promise<EndingsStateDto> {
    return endingsStateDto(await this.endings.choose(tenant, id, body.subscriber_id, body.choice_id));
  }
}
