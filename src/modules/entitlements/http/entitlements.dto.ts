import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsIn, IsString, Length } from 'class-validator';
import { ExtensionProperty } from '../../../shared/http/extension.decorator.js';
import { IsIsoInstant } from '../../../shared/http/date-time.js';
import { IsSubscriberId } from '../../../shared/http/identifiers.js';
import type { Entitlement } from '../domain/entitlement.repository.js';
import { ENTITLEMENT_STATUSES, PRODUCTS, type EntitlementStatus, type Product } from '../domain/plans.js';
import { MayBeOmitted } from '../../../shared/http/may-be-omitted.js';

export class EntitlementRequestDto {
  @ApiProperty({ description: 'Subscriber identifier in the partner system.', example: 'sub-42' })
  @IsDefined({ message: 'subscriber_id is required' })
  @IsString({ message: 'subscriber_id must be a string' })
  @IsSubscriberId()
  subscriber_id: string;

  @ApiProperty({ enum: PRODUCTS })
  @IsDefined({ message: 'product is required' })
  @IsIn(PRODUCTS, { message: `product must be one of ${PRODUCTS.join(', ')}` })
  product: Product;

  @ApiProperty({ enum: ENTITLEMENT_STATUSES })
  @IsDefined({ message: 'status is required' })
  @IsIn(ENTITLEMENT_STATUSES, { message: `status must be one of ${ENTITLEMENT_STATUSES.join(', ')}` })
  status: EntitlementStatus;

  @ApiPropertyOptional({ description: 'Plan the subscriber holds at the partner, mapped to an internal plan.', example: 'premium' })
  @MayBeOmitted()
  @IsString({ message: 'plan must be a string' })
  @Length(1, 100, { message: 'plan must be 1 to 100 characters' })
  plan?: string;

  @ExtensionProperty({
    required: false,
    format: 'date-time',
    // No example: any fixed instant leaves the 72 hours live accepts, and a document made
    // at start would differ from the committed SDK. The description says what fits.
    description:
      '[extension] When the change happened at the partner, e.g. the current time; at most 5 minutes ahead of the server clock and, in live, at most 72 hours ' +
      "in the past (older periods are settled; the sandbox accepts any past instant). A write older than the record's last change is " +
      'acknowledged with applied: false and changes nothing. Absent: the time of receipt.',
  })
  @MayBeOmitted()
  @IsIsoInstant('effective_at')
  effective_at?: string;
}

export class EntitlementWriteDto {
  @ApiProperty({ example: true }) ok: boolean;
  @ExtensionProperty({
    example: true,
    description: "[extension] false when the write was older than the record's last change (stale): acknowledged, recorded in the history, not applied.",
  })
  applied: boolean;
}

export class SubscriberEntitlementDto {
  @ApiProperty({ enum: PRODUCTS }) product: string;
  @ApiProperty({ enum: ENTITLEMENT_STATUSES }) status: string;
  @ApiProperty({ nullable: true, type: String, description: 'The plan as the partner sent it.' }) plan: string | null;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class SubscriberStatusDto {
  @ApiProperty() subscriber_id: string;
  @ApiProperty({ type: [SubscriberEntitlementDto] }) entitlements: SubscriberEntitlementDto[];
}

export const subscriberStatusDto = (subscriberId: string, entitlements: readonly Entitlement[]): SubscriberStatusDto => ({
  subscriber_id: subscriberId,
  entitlements: entitlements.map((e) => ({ product: e.product, status: e.status, plan: e.partnerPlan, updated_at: e.updatedAt.toISOString() })),
});
