import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsIn, IsOptional, Matches } from 'class-validator';
import { PRODUCTS, type Product } from '../../entitlements/index.js';

export class BillingUsageQueryDto {
  @ApiProperty({ enum: PRODUCTS })
  @IsDefined({ message: 'product is required' })
  @IsIn(PRODUCTS, { message: `product must be one of ${PRODUCTS.join(', ')}` })
  product: Product;

  @ApiPropertyOptional({ description: 'YYYY-MM; defaults to the current UTC month.', example: '2026-11' })
  @IsOptional()
  // No year 0000: PostgreSQL has none, so a month of it names no stored period.
  @Matches(/^(?!0000)\d{4}-(0[1-9]|1[0-2])$/, { message: 'period must have the format YYYY-MM, from 0001-01 to 9999-12' })
  period?: string;
}

export class BillingUsageDto {
  @ApiProperty({ enum: PRODUCTS }) product: string;
  @ApiProperty({ example: '2026-11' }) period: string;
  @ApiProperty({ type: 'integer', description: "Count of the partner's active entitlements for the product." }) active_count: number;
  @ApiProperty() note: string;
}
