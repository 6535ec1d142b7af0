import { Controller, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ErrorBodyDto } from '../../../shared/http/error-body.dto.js';
import { readingPaths } from '../../../shared/http/surfaces.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { CurrentTenant, RequireScopes } from '../../identity/index.js';
import { EngagementReportService } from '../application/engagement-report.service.js';
import { engagementWindow } from '../domain/engagement-report.js';
import { EngagementQueryDto, EngagementReportDto, engagementReportDto } from './analytics.dto.js';

@ApiTags('Analytics')
@Controller(readingPaths('analytics/engagement'))
export class AnalyticsController {
  constructor(private readonly reports: EngagementReportService) {}

  @Get()
  @RequireScopes('textapp:analytics:read')
  @ApiOperation({
    summary: 'Aggregated engagement of the partner’s subscribers in a period',
    description:
      'Inclusive UTC dates, at most 366 days; by default the current UTC month to today. Aggregated at partner level: no subscriber identifier appears.',
  })
  @ApiOkResponse({ type: EngagementReportDto })
  @ApiBadRequestResponse({
    type: ErrorBodyDto,
    description: 'invalid_request: a date that is not YYYY-MM-DD, period_end before period_start, more than 366 days, or an unknown parameter',
  })
  async engagement(@CurrentTenant() tenant: Tenant, @Query() query: EngagementQueryDto): Promise<EngagementReportDto> {
    return engagementReportDto(await this.reports.report(tenant, engagementWindow(query.period_start, query.period_end, new Date())));
  }
}
