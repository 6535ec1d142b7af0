import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsString } from 'class-validator';
import type { KidsEngagementSummary } from '../domain/kids-engagement-summary.js';

/** The window is the only filter: any other parameter (a subscriber, a child) is refused. */
export class KidsSummaryQueryDto {
  @ApiProperty({
    format: 'date',
    description: 'The first day of a UTC calendar month: the period starts with that month.',
    example: '2026-09-01',
  })
  @IsDefined({ message: 'period_start is required (YYYY-MM-DD)' })
  @IsString({ message: 'period_start must be given once, as YYYY-MM-DD' })
  period_start: string;

  @ApiProperty({
    format: 'date',
    description:
      'The last day of the same or a later UTC calendar month, at most 12 months in all; that month must have ended at least 72 hours before the request.',
    example: '2026-10-31',
  })
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
  @ApiProperty({
    description:
      'true when the numeric fields are null because a month of the period had fewer than min_sample_threshold entitled accounts, or accounts with activity.',
  })
  suppressed: boolean;
  @ApiProperty({ format: 'date-time', description: 'When the figures of the newest month of the period were fixed; the same for every repeat of the request.' })
  generated_at: string;
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
