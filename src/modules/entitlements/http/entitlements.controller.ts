import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Extension } from '../../../shared/http/extension.decorator.js';
import { ErrorBodyDto } from '../../../shared/http/error-body.dto.js';
import { subscriberIdPipe } from '../../../shared/http/identifiers.js';
import { platformPath } from '../../../shared/http/surfaces.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { CurrentPrincipal, CurrentTenant, RequireScopes, type Principal } from '../../identity/index.js';
import { EntitlementsService } from '../application/entitlements.service.js';
import { EntitlementRequestDto, EntitlementWriteDto, SubscriberStatusDto, subscriberStatusDto } from './entitlements.dto.js';
import { TakesIdempotencyKey } from '../../idempotency/index.js';

@ApiTags('Platform: entitlements')
@Controller(platformPath())
export class EntitlementsController {
  constructor(private readonly entitlements: EntitlementsService) {}

  @Post('entitlements')
  @TakesIdempotencyKey()
  @HttpCode(200)
  @RequireScopes('platform:entitlements:write')
  @ApiOperation({
    summary: "Activate, suspend or cancel a subscriber's access to a product (upsert)",
    description: 'Unique per (partner, subscriber, product): repeating the call is safe and changes nothing.',
  })
  @ApiOkResponse({ type: EntitlementWriteDto })
  @ApiBadRequestResponse({
    type: ErrorBodyDto,
    description:
      'invalid_request: subscriber_id, product or status missing or invalid, or effective_at malformed, more than 5 minutes ahead, or (live) more than 72 hours in the past',
  })
  async upsert(@CurrentPrincipal() principal: Principal, @Body() body: EntitlementRequestDto): Promise<EntitlementWriteDto> {
    const { applied } = await this.entitlements.upsert(principal, principal.clientId, {
      subscriberId: body.subscriber_id,
      product: body.product,
      status: body.status,
      plan: body.plan,
      effectiveAt: body.effective_at === undefined ? undefined : new Date(body.effective_at),
    });
    return { ok: true, applied };
  }

  @Get('subscriber/:id/status')
  @RequireScopes('platform:subscribers:read')
  @Extension()
  @ApiOperation({ summary: "A subscriber's entitlements [extension shape]", description: 'An unknown subscriber gets 200 with an empty list.' })
  @ApiOkResponse({ type: SubscriberStatusDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto })
  async status(@CurrentTenant() tenant: Tenant, @Param('id', subscriberIdPipe('subscriber id')) subscriberId: string): Promise<SubscriberStatusDto> {
    return subscriberStatusDto(subscriberId, await this.entitlements.list(tenant, subscriberId));
  }
}
