import { Controller, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiGoneResponse, ApiOkResponse, ApiOperation, ApiTags, ApiTooManyRequestsResponse } from '@nestjs/swagger';
import { ErrorBodyDto } from '../../../shared/http/error-body.dto.js';
import { Extension } from '../../../shared/http/extension.decorator.js';
import { platformPath } from '../../../shared/http/surfaces.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { CurrentPrincipal, CurrentTenant, RequireScopes, type Principal } from '../../identity/index.js';
import { EventFeedService } from '../application/event-feed.service.js';
import { EventFeedQueryDto, FeedPageDto, feedPageDto } from './event-feed.dto.js';

/** The event feed (DECISIONS 22): what webhooks sent, readable again in order, without gaps. */
@ApiTags('Platform: webhooks')
@Controller(platformPath())
export class EventFeedController {
  constructor(private readonly feed: EventFeedService) {}

  @Get('events')
  @RequireScopes('platform:webhooks:manage')
  @Extension()
  @ApiOperation({
    summary: 'Read the event feed in seq order, with long polling',
    description:
      'Every event the partner is sent, numbered 1, 2, 3… per environment in commit order, kept 90 days. After downtime, read on from ' +
      'the last seq seen until has_more is false; with wait, a request with nothing to read is held until the next event commits.',
  })
  @ApiOkResponse({ type: FeedPageDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: 'invalid_request: after, limit or wait invalid' })
  @ApiGoneResponse({ type: ErrorBodyDto, description: 'events_expired: events after `after` are past retention' })
  @ApiTooManyRequestsResponse({
    type: ErrorBodyDto,
    description: 'rate_limited: the credential already holds 10 waiting long polls, or its rate limit is spent',
  })
  async read(@CurrentTenant() tenant: Tenant, @CurrentPrincipal() caller: Principal, @Query() query: EventFeedQueryDto): Promise<FeedPageDto> {
    return feedPageDto(await this.feed.read(tenant, caller.clientId, { after: query.after, limit: query.limit, waitSeconds: query.wait }));
  }
}
