import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsIn, Matches } from 'class-validator';
import { ExtensionProperty } from '../../../shared/http/extension.decorator.js';
import { PRODUCTS, type Product } from '../../entitlements/index.js';
import type { BillingUsage } from '../application/billing.service.js';
import { MayBeOmitted } from '../../../shared/http/may-be-omitted.js';

// No year 0000: PostgreSQL has none, so a month of it names no stored period.
const PERIOD_PATTERN = /^(?!0000)\d{4}-(0[1-9]|1[0-2])$/;

export class BillingUsageQueryDto {
  @ApiProperty({ enum: PRODUCTS })
  @IsDefined({ message: 'product is required' })
  @IsIn(PRODUCTS, { message: `product must be one of ${PRODUCTS.join(', ')}` })
  product: Product;

  @ApiPropertyOptional({ description: 'YYYY-MM, a UTC month that has begun; defaults to the current one.', example: '2026-11', pattern: PERIOD_PATTERN.source })
  @MayBeOmitted()
  @Matches(PERIOD_PATTERN, { message: 'period must have the format YYYY-MM, from 0001-01 to 9999-12' })
  period?: string;
}

export class BillingUsageDto {
  @ApiProperty({ enum: PRODUCTS }) product: string;
  @ApiProperty({ example: '2026-11' }) period: string;
  @ApiProperty({ type: 'integer', description: "Count of the partner's active entitlements for the product now." }) active_count: number;
  @ApiProperty() note: string;
  @ExtensionProperty({ type: 'integer', description: "[extension] Active entitlements at the period's last instant (now, for the current month)." })
  period_active_at_end: number;
  @ExtensionProperty({ type: 'integer', description: '[extension] The most active entitlements at any instant of the period.' })
  period_peak_active: number;
  @ExtensionProperty({ type: 'number', description: "[extension] Mean of the active counts at 00:00 UTC of the period's days so far." })
  period_average_daily_active: number;
  @ExtensionProperty({ description: '[extension] false when the entitlement history does not reach back to the period start.' })
  history_complete: boolean;
}

export const billingUsageDto = (usage: BillingUsage): BillingUsageDto => ({
  product: usage.product,
  period: usage.period,
  active_count: usage.activeCount,
  note: usage.note,
  period_active_at_end: usage.periodActiveAtEnd,
  period_peak_active: usage.periodPeakActive,
  period_average_daily_active: usage.periodAverageDailyActive,
  history_complete: usage.historyComplete,
});
