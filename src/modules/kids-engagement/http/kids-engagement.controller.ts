import { Controller, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ErrorBodyDto } from '../../../shared/http/error-body.dto.js';
import { kidsPath } from '../../../shared/http/surfaces.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { reportingWindow } from '../../analytics/index.js';
import { CurrentTenant, RequireScopes } from '../../identity/index.js';
import { KidsEngagementService } from '../application/kids-engagement.service.js';
import { KidsEngagementSummaryDto, kidsEngagementSummaryDto, KidsSummaryQueryDto } from './kids-engagement.dto.js';

@ApiTags('Children: engagement')
@Controller(kidsPath('engagement/summary'))
export class KidsEngagementController {
  constructor(private readonly engagement: KidsEngagementService) {}

  @Get()
  @RequireScopes('kidsapp:engagement:read')
  @ApiOperation({
    summary: "Children's engagement aggregated over the partner's whole account base",
    description:
      'Accepts a children’s service token or a platform token carrying kidsapp:engagement:read. Under 30 active accounts every figure is null and suppressed is true. Never a row per account or child.',
  })
  @ApiOkResponse({ type: KidsEngagementSummaryDto })
  @ApiBadRequestResponse({
    type: ErrorBodyDto,
    description: 'invalid_request: a period date missing or not YYYY-MM-DD, period_end before period_start, more than 366 days, or any other query parameter',
  })
  async summary(@CurrentTenant() tenant: Tenant, @Query() query: KidsSummaryQueryDto): Promise<KidsEngagementSummaryDto> {
    return kidsEngagementSummaryDto(await this.engagement.summary(tenant, reportingWindow(query.period_start, query.period_end)));
  }
}
