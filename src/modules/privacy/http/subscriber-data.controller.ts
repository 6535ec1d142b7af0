import { Controller, Delete, Get, HttpCode, Param } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ErrorBodyDto } from '../../../shared/http/error-body.dto.js';
import { Extension } from '../../../shared/http/extension.decorator.js';
import { subscriberIdPipe } from '../../../shared/http/identifiers.js';
import { platformPath } from '../../../shared/http/surfaces.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { CurrentTenant, RequireScopes } from '../../identity/index.js';
import { erasureDocument, SubscriberDataService } from '../application/subscriber-data.service.js';
import { SubscriberErasureDto, SubscriberExportDto, subscriberExportDto } from './subscriber-data.dto.js';
import { TakesIdempotencyKey } from '../../idempotency/index.js';

/** A subscriber's data rights (DECISIONS 29): see everything held, or erase it. */
@ApiTags('Platform: subscribers')
@Controller(platformPath('subscribers'))
export class SubscriberDataController {
  constructor(private readonly subscriberData: SubscriberDataService) {}

  @Get(':subscriber_id/export')
  @RequireScopes('platform:subscribers:read')
  @Extension()
  @ApiOperation({
    summary: 'Export everything held about a subscriber',
    description:
      "Every datum held about the subscriber in the token's environment, in one document (GDPR articles 15 and 20). A subscriber with no data gets 200 with empty lists.",
  })
  @ApiOkResponse({ type: SubscriberExportDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: 'invalid_request: subscriber id invalid' })
  async export(@CurrentTenant() tenant: Tenant, @Param('subscriber_id', subscriberIdPipe('subscriber id')) subscriberId: string): Promise<SubscriberExportDto> {
    return subscriberExportDto(await this.subscriberData.export(tenant, subscriberId));
  }

  @Delete(':subscriber_id')
  @TakesIdempotencyKey()
  @HttpCode(200)
  @RequireScopes('platform:subscribers:erase')
  @Extension()
  @ApiOperation({
    summary: "Erase a subscriber's data",
    description:
      "In one transaction, in the token's environment only: afterwards no record holds the subscriber id. Events already in the feed keep their sequence numbers with data.subscriber_id null and data.erased true, and their deliveries not yet made are cancelled; a test clock drops the subscriber. Reports of past periods (billing usage, engagement, children's summary) answer as before. Repeating it answers 200 with every count 0; the id may be used again and starts with no data. The scope is not in a credential's default set.",
  })
  @ApiOkResponse({ type: SubscriberErasureDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: 'invalid_request: subscriber id invalid' })
  async erase(@CurrentTenant() tenant: Tenant, @Param('subscriber_id', subscriberIdPipe('subscriber id')) subscriberId: string): Promise<SubscriberErasureDto> {
    return erasureDocument(await this.subscriberData.erase(tenant, subscriberId));
  }
}
