import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayNotEmpty, IsArray, IsDefined, IsIn, IsInt, IsString, Max, MaxLength, Min } from 'class-validator';
import { IntegerQueryParam } from '../../../shared/http/validation.js';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../domain/webhook-delivery.repository.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../domain/webhook-event.js';
import { DELIVERY_FAILURES, type DeliveryFailure } from '../domain/webhook-sender.js';
import { MayBeOmitted } from '../../../shared/http/may-be-omitted.js';

export class CreateWebhookEndpointDto {
  @ApiProperty({
    description:
      'Where deliveries are POSTed. Live endpoints: https on port 443 or 8443, to a host that resolves to public addresses only. Sandbox endpoints may also use http and any port (and, on a service run outside production, loopback addresses). At most 10 endpoints per environment.',
    // A host that resolves to public addresses: the service accepts the example as it is.
    example: 'https://example.com/webhooks/reading',
    format: 'uri',
    maxLength: 2048,
  })
  // With stopAtFirstError, class-validator checks the lowest decorator first.
  @IsDefined({ message: 'url is required' })
  @MaxLength(2048, { message: 'url must be at most 2048 characters' })
  @IsString({ message: 'url must be a string' })
  url: string;

  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES, isArray: true, example: ['novel.finished'] })
  @IsDefined({ message: 'events is required' })
  @IsIn(WEBHOOK_EVENT_TYPES, { each: true, message: `events may contain only ${WEBHOOK_EVENT_TYPES.join(', ')}` })
  @ArrayNotEmpty({ message: 'events must list at least one event type' })
  @IsArray({ message: 'events must be an array' })
  events: WebhookEventType[];
}

export class WebhookEndpointDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty() url: string;
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES, isArray: true }) events: string[];
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class WebhookEndpointListDto {
  @ApiProperty({ type: [WebhookEndpointDto] }) data: WebhookEndpointDto[];
}

export class WebhookEndpointWithSecretDto extends WebhookEndpointDto {
  @ApiProperty({
    description: 'Signing secret (Standard Webhooks format). Shown only in this answer: store it now.',
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw4nOPkGp7ZEA=',
  })
  secret: string;
}

export class RotatedWebhookSecretDto extends WebhookEndpointWithSecretDto {
  @ApiProperty({ format: 'date-time', description: 'Until then deliveries carry a signature by the previous secret as well.' })
  previous_secret_expires_at: string;
}

export class DeliveriesQueryDto {
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES, description: 'Only deliveries in this state.' })
  @MayBeOmitted()
  @IsIn(DELIVERY_STATUSES, { message: `status must be one of ${DELIVERY_STATUSES.join(', ')}` })
  status?: DeliveryStatus;

  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 50, description: 'How many deliveries, most recent first.' })
  @MayBeOmitted()
  @IntegerQueryParam()
  @Max(100, { message: 'limit must be an integer from 1 to 100' })
  @Min(1, { message: 'limit must be an integer from 1 to 100' })
  @IsInt({ message: 'limit must be an integer from 1 to 100' })
  limit?: number;
}

export class DeliveryAttemptDto {
  @ApiProperty({ nullable: true, type: 'integer', description: "The receiver's status code; null when no response arrived." })
  status_code: number | null;
  @ApiProperty({ type: 'integer', description: 'Milliseconds until the response status arrived, or until the attempt failed.' }) duration_ms: number;
  @ApiProperty({
    nullable: true,
    enum: DELIVERY_FAILURES,
    example: 'timeout',
    description:
      'Why the attempt failed, null when a 2xx confirmed it. timeout: no status within the time limit; connection_refused: no connection, or it broke before a status, or the address is not allowed; tls: the TLS handshake failed; dns: the host name did not resolve; http_status: a status other than 2xx (redirects are not followed).',
  })
  error: DeliveryFailure | null;
  @ApiProperty({ format: 'date-time' }) attempted_at: string;
}

export class WebhookDeliveryDto {
  @ApiProperty({ format: 'uuid' }) event_id: string;
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES }) event_type: string;
  @ApiProperty({
    enum: DELIVERY_STATUSES,
    description:
      'delivered: a 2xx arrived; failed: every scheduled attempt failed (redeliver to retry); cancelled: its subscriber was erased before it was delivered (DECISIONS 29).',
  })
  status: string;
  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'When the next attempt is due, while pending.' })
  next_attempt_at: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ type: [DeliveryAttemptDto] }) attempts: DeliveryAttemptDto[];
}

export class WebhookDeliveryListDto {
  @ApiProperty({ type: [WebhookDeliveryDto] }) data: WebhookDeliveryDto[];
}

export class RedeliveryDto {
  @ApiProperty({ format: 'uuid' }) event_id: string;
  @ApiProperty({ type: [String], description: 'Endpoints the event is being sent to again.' }) endpoint_ids: string[];
}
