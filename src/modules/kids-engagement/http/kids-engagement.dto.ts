import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsString } from 'class-validator';
import type { KidsEngagementSummary } from '../domain/kids-engagement-summary.js';

/** The window is the only filter: any other parameter (a subscriber, a child) is refused. */
export class KidsSummaryQueryDto {
  @ApiProperty({ format: 'date', description: 'First UTC day of the period, included.', example: '2026-11-01' })
  @IsDefined({ message: 'period_start is required (YYYY-MM-DD)' })
  @IsString({ message: 'period_start must be given once, as YYYY-MM-DD' })
  period_start: string;

  @ApiProperty({ format: 'date', description: 'Last UTC day of the period, included; at most 366 days counting both ends.', example: '2026-11-30' })
  @IsDefined({ message: 'period_end is required (YYYY-MM-DD)' })
  @IsString({ message: 'period_end must be given once, as YYYY-MM-DD' })
  period_end: string;
}

export class KidsEngagementSummaryDto {
  @ApiProperty({ format: 'date' }) period_start: string;
  @ApiProperty({ format: 'date' }) period_end: string;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Partner accounts with a kidsapp entitlement active at some point in the period. null when suppressed.',
  })
  active_accounts: number | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Stories completed in the period, summed across all accounts and children. null when suppressed.',
  })
  stories_completed: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Minutes read, summed per active account, then averaged across active accounts. null when suppressed.',
  })
  avg_minutes_per_active_account: number | null;
  @ApiProperty({ type: 'integer', example: 30 }) min_sample_threshold: number;
  @ApiProperty({ description: 'true when the numeric fields are null because active_accounts is below min_sample_threshold.' }) suppressed: boolean;
  @ApiProperty({ format: 'date-time' }) generated_at: string;
}

export const kidsEngagementSummaryDto = (summary: KidsEngagementSummary): KidsEngagementSummaryDto => ({
  period_start: summary.periodStart,
  period_end: summary.periodEnd,
  active_accounts: summary.activeAccounts,
  stories_completed: summary.storiesCompleted,
  avg_minutes_per_active_account: summary.avgMinutesPerActiveAccount,
  min_sample_threshold: summary.minSampleThreshold,
  suppressed: summary.suppressed,
  generated_at: summary.generatedAt.toISOString(),
});
