import { Controller, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ErrorBodyDto } from '../../../shared/http/error-body.dto.js';
import { platformPath } from '../../../shared/http/surfaces.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { CurrentTenant, RequireScopes } from '../../identity/index.js';
import { BillingService } from '../application/billing.service.js';
import { BillingUsageDto, BillingUsageQueryDto, billingUsageDto } from './billing.dto.js';

@ApiTags('Platform: billing')
@Controller(platformPath())
export class BillingController {
  constructor(private readonly billing: BillingService) {}

  @Get('billing-usage')
  @RequireScopes('platform:billing:read')
  @ApiOperation({
    summary: 'Active entitlements per product, now and over a month',
    description: 'active_count is the current count (the v1 simplification the note repeats); the period_* extension fields come from the entitlement history.',
  })
  @ApiOkResponse({ type: BillingUsageDto })
  @ApiBadRequestResponse({ type: ErrorBodyDto, description: 'invalid_request: product missing or invalid, period not YYYY-MM or not begun' })
  async usage(@CurrentTenant() tenant: Tenant, @Query() query: BillingUsageQueryDto): Promise<BillingUsageDto> {
    return billingUsageDto(await this.billing.usage(tenant, query.product, query.period));
  }
}
