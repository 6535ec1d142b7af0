import { Controller, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ErrorBodyDto } from '../../../shared/http/error-body.dto.js';
import { kidsPath } from '../../../shared/http/surfaces.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { CurrentTenant, RequireScopes } from '../../identity/index.js';
import { KidsEngagementService } from '../application/kids-engagement.service.js';
import { kidsMonthWindow } from '../application/kids-month-window.js';
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
      'Accepts a children’s service token or a platform token carrying kidsapp:engagement:read. The period is whole UTC calendar months (at most 12), each ended at least 72 hours ago. ' +
      'When any month of the period alone has fewer than 30 entitled accounts or fewer than 30 accounts with activity, every figure is null and suppressed is true. ' +
      'A month’s figures are fixed the first time an answer covers it: the same request always gets the same answer. Never a row per account or child.',
  })
  @ApiOkResponse({ type: KidsEngagementSummaryDto })
  @ApiBadRequestResponse({
    type: ErrorBodyDto,
    description:
      'invalid_request: a period date missing or not YYYY-MM-DD, any other query parameter, a period that is not whole months (at most 12) or whose end is before its start ' +
      '(the description names the nearest accepted period, e.g. "use period_start=2026-09-01&period_end=2026-10-31"), or a month not yet settled (the description gives the RFC 3339 instant from which it can be asked)',
  })
  async summary(@CurrentTenant() tenant: Tenant, @Query() query: KidsSummaryQueryDto): Promise<KidsEngagementSummaryDto> {
    // Settlement is judged in real time, in the sandbox too: test clocks move single subscribers, not the partner's months.
    return kidsEngagementSummaryDto(await this.engagement.summary(tenant, kidsMonthWindow(query.period_start, query.period_end, new Date())));
  }
}
