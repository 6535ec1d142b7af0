import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiExtension,
  ApiForbiddenResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiTooManyRequestsResponse,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ErrorBodyDto } from '../../../shared/http/error-body.dto.js';
import { Extension } from '../../../shared/http/extension.decorator.js';
import { subscriberIdPipe, uuidPipe } from '../../../shared/http/identifiers.js';
import { setCreatedLocation } from '../../../shared/http/location.js';
import { platformPath } from '../../../shared/http/surfaces.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { CurrentPrincipal, CurrentTenant, RequireScopes, type Principal } from '../../identity/index.js';
import { ERASING_SCOPES, TestClockService } from '../application/test-clock.service.js';
import { AdvanceTestClockDto, CreateTestClockDto, TestClockDto, TestClockListDto, testClockDto } from './test-clocks.dto.js';
import { TakesIdempotencyKey } from '../../idempotency/index.js';

const SCOPE = 'platform:entitlements:write';
const SANDBOX_ONLY = `sandbox_only: the token is of a live credential, and test clocks exist in the sandbox only; insufficient_scope: the token needs ${SCOPE}`;

/** Sandbox test clocks (DECISIONS 28): a partner's sandbox subscribers on a time it moves. */
@ApiTags('Platform: test clocks')
// Tools (the SDK, the conformance tests) call these with a sandbox credential's token.
@ApiExtension('x-sandbox-only', true)
@Controller(platformPath('test-clocks'))
export class TestClocksController {
  constructor(private readonly clocks: TestClockService) {}

  @Post()
  @TakesIdempotencyKey()
  @RequireScopes(SCOPE)
  @Extension()
  @ApiOperation({
    summary: 'Create a test clock',
    description: 'Sandbox credentials only. At most 10 clocks per partner. Attach subscribers to it, then advance it to watch the drip move.',
  })
  @ApiCreatedResponse({ type: TestClockDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: 'invalid_request: frozen_time missing, malformed or more than a year from now; name invalid' })
  @ApiForbiddenResponse({ type: ErrorBodyDto, description: SANDBOX_ONLY })
  @ApiConflictResponse({ type: ErrorBodyDto, description: 'limit_reached: the partner already has 10 test clocks' })
  async create(@CurrentTenant() tenant: Tenant, @Body() body: CreateTestClockDto, @Res({ passthrough: true }) reply: FastifyReply): Promise<TestClockDto> {
    const clock = await this.clocks.create(tenant, { name: body.name ?? null, frozenTime: new Date(body.frozen_time) });
    setCreatedLocation(reply, clock.id);
    return testClockDto(clock);
  }

  @Get()
  @RequireScopes(SCOPE)
  @Extension()
  @ApiOperation({ summary: "List the partner's test clocks", description: 'Oldest first, each with its attached subscribers.' })
  @ApiOkResponse({ type: TestClockListDto })
  @ApiForbiddenResponse({ type: ErrorBodyDto, description: SANDBOX_ONLY })
  async list(@CurrentTenant() tenant: Tenant): Promise<TestClockListDto> {
    return { data: (await this.clocks.list(tenant)).map(testClockDto) };
  }

  @Get(':id')
  @RequireScopes(SCOPE)
  @Extension()
  @ApiOperation({ summary: 'A test clock', description: 'Its time and its attached subscribers.' })
  @ApiOkResponse({ type: TestClockDto })
  @ApiForbiddenResponse({ type: ErrorBodyDto, description: SANDBOX_ONLY })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'not_found' })
  async get(@CurrentTenant() tenant: Tenant, @Param('id', uuidPipe('test clock')) id: string): Promise<TestClockDto> {
    return testClockDto(await this.clocks.get(tenant, id));
  }

  @Delete(':id')
  @TakesIdempotencyKey()
  @HttpCode(204)
  @RequireScopes(SCOPE)
  @Extension()
  @ApiOperation({
    summary: 'Delete a test clock and its subscribers’ sandbox data',
    description: `In one transaction: the clock, and every entitlement, opened novel, playback position, reading activity and stream URL record of its subscribers. Events already in the feed stay. The subscriber ids can then be used again. A clock with subscribers needs a token with every scope that writes that data: ${ERASING_SCOPES.join(', ')}.`,
  })
  @ApiNoContentResponse()
  @ApiForbiddenResponse({
    type: ErrorBodyDto,
    description: `${SANDBOX_ONLY}, and for a clock with subscribers also ${ERASING_SCOPES.join(', ')}`,
  })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'not_found' })
  async remove(@CurrentPrincipal() principal: Principal, @Param('id', uuidPipe('test clock')) id: string): Promise<void> {
    await this.clocks.delete(principal, id, principal.scopes);
  }

  @Put(':id/subscribers/:subscriber_id')
  @TakesIdempotencyKey()
  @RequireScopes(SCOPE)
  @Extension()
  @ApiOperation({
    summary: 'Attach a sandbox subscriber to a test clock',
    description:
      'From then on "now" for the subscriber is the clock\'s time everywhere in the sandbox. Only a subscriber without any sandbox data (no entitlement yet) can be attached; attaching it again to the same clock changes nothing. At most 100 subscribers per clock.',
  })
  @ApiOkResponse({ type: TestClockDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: 'invalid_request: subscriber id invalid' })
  @ApiForbiddenResponse({ type: ErrorBodyDto, description: SANDBOX_ONLY })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'not_found' })
  @ApiConflictResponse({
    type: ErrorBodyDto,
    description:
      'subscriber_has_data: the subscriber already has sandbox data or belongs to another clock; limit_reached: the clock already has 100 subscribers',
  })
  async attach(
    @CurrentTenant() tenant: Tenant,
    @Param('id', uuidPipe('test clock')) id: string,
    @Param('subscriber_id', subscriberIdPipe('subscriber id')) subscriberId: string,
  ): Promise<TestClockDto> {
    return testClockDto(await this.clocks.attach(tenant, id, subscriberId));
  }

  @Post(':id/advance')
  @TakesIdempotencyKey()
  @HttpCode(200)
  @RequireScopes(SCOPE)
  @Extension()
  @ApiOperation({
    summary: 'Advance a test clock',
    description:
      'Answers once every chapter.unlocked whose instant the advance crossed is written (feed and webhooks, in instant order, occurred_at the instant), as the live job would have emitted them. Advancing to the current time again changes nothing. A partner may advance its clocks 60 times an hour (20 at once) and their advances may write 1 000 events an hour (an advance at most 1 000); beyond, 429 with Retry-After and nothing written.',
  })
  @ApiOkResponse({ type: TestClockDto })
  @ApiTooManyRequestsResponse({
    type: ErrorBodyDto,
    description: "rate_limited: the partner's budget of clock advances or of the events they write is spent; Retry-After says when to retry",
  })
  @ApiBadRequestResponse({
    type: ErrorBodyDto,
    description:
      "invalid_request: frozen_time missing, malformed, earlier than the clock's time, more than a year after it or after the real time, or the advance would write more than 1 000 events",
  })
  @ApiForbiddenResponse({ type: ErrorBodyDto, description: SANDBOX_ONLY })
  @ApiNotFoundResponse({ type: ErrorBodyDto, description: 'not_found' })
  async advance(@CurrentTenant() tenant: Tenant, @Param('id', uuidPipe('test clock')) id: string, @Body() body: AdvanceTestClockDto): Promise<TestClockDto> {
    return testClockDto(await this.clocks.advance(tenant, id, new Date(body.frozen_time)));
  }
}
