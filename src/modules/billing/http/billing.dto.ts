import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsIn, IsOptional, Matches } from 'class-validator';
import { PRODUCTS, type Product } from '../../entitlements/index.js';
import type { BillingUsage } from '../application/billing.service.js';

export class BillingUsageQueryDto {
  @ApiProperty({ enum: PRODUCTS })
  @IsDefined({ message: 'product is required' })
  @IsIn(PRODUCTS, { message: `product must be one of ${PRODUCTS.join(', ')}` })
  product: Product;

  @ApiPropertyOptional({ description: 'YYYY-MM; defaults to the current UTC month.', example: '2026-11' })
  @IsOptional()
  @Matches(/^\d{4}-(0[1-9]|1[0-2])$/, { message: 'period must have the format YYYY-MM' })
  period?: string;
}

export class BillingUsageDto {
  @ApiProperty({ enum: PRODUCTS }) product: string;
  @ApiProperty({ example: '2026-11' }) period: string;
  @ApiProperty({ description: "Count of the partner's active entitlements for the product." }) active_count: number;
  @ApiProperty() note: string;
}

export const billingUsageDto = (usage: BillingUsage): BillingUsageDto => ({
  product: usage.product,
  period: usage.period,
  active_count: usage.activeCount,
  note: usage.note,
});
