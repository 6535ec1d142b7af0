import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import type { EngagementReport } from '../domain/engagement-report.js';
import { MayBeOmitted } from '../../../shared/http/may-be-omitted.js';

export class EngagementQueryDto {
  @ApiPropertyOptional({
    format: 'date',
    description: 'First UTC day of the period, included. Defaults to the first day of period_end’s month.',
    example: '2026-11-01',
  })
  @MayBeOmitted()
  @IsString({ message: 'period_start must be given once, as YYYY-MM-DD' })
  period_start?: string;

  @ApiPropertyOptional({
    format: 'date',
    description: 'Last UTC day of the period, included; at most 366 days after period_start counting both. Defaults to today (UTC).',
    example: '2026-11-30',
  })
  @MayBeOmitted()
  @IsString({ message: 'period_end must be given once, as YYYY-MM-DD' })
  period_end?: string;
}

export class EndingCountDto {
  @ApiProperty({ example: 'the-heir' }) novel_id: string;
  @ApiProperty({ example: 'stay' }) choice_id: string;
  @ApiProperty({ description: 'The ending’s label (may be a spoiler).' }) label: string;
  @ApiProperty({ type: 'integer', description: 'Readers who chose this ending in the period; never below minimum_cohort_size.', example: 42 }) count: number;
}

export class EngagementReportDto {
  @ApiProperty({ format: 'date' }) period_start: string;
  @ApiProperty({ format: 'date' }) period_end: string;
  @ApiProperty({
    type: 'integer',
    description: 'Distinct subscribers of this partner with reading activity (a chapter-text read or a playback-position write) in the period.',
  })
  active_readers: number;
  @ApiProperty({
    description: 'Distinct (subscriber, novel, chapter) with activity in the period, divided by active_readers; 0 when there are none.',
    example: 4.25,
  })
  avg_chapters_read_per_active_reader: number;
  @ApiProperty({ description: 'Share of the novels started in the period that are finished with a chosen ending; 0 when none started.', example: 0.3125 })
  completion_rate: number;
  @ApiProperty({
    type: [EndingCountDto],
    description: 'Endings chosen in the period per (novel, choice); rows with fewer than minimum_cohort_size readers are omitted.',
  })
  ending_distribution: EndingCountDto[];
  @ApiProperty({ type: 'integer', example: 20 }) minimum_cohort_size: number;
  @ApiProperty({ format: 'date-time' }) generated_at: string;
}

export const engagementReportDto = (report: EngagementReport): EngagementReportDto => ({
  period_start: report.periodStart,
  period_end: report.periodEnd,
  active_readers: report.activeReaders,
  avg_chapters_read_per_active_reader: report.avgChaptersReadPerActiveReader,
  completion_rate: report.completionRate,
  ending_distribution: report.endingDistribution.map((e) => ({ novel_id: e.novelId, choice_id: e.choiceId, label: e.label, count: e.count })),
  minimum_cohort_size: report.minimumCohortSize,
  generated_at: report.generatedAt.toISOString(),
});
