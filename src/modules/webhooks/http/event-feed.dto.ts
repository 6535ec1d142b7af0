import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { IntegerQueryParam } from '../../../shared/http/validation.js';
import { FEED_DEFAULT_LIMIT, FEED_MAX_LIMIT, FEED_MAX_WAIT_SECONDS, type FeedItem, type FeedPage } from '../domain/event-feed.js';
import { WEBHOOK_EVENT_TYPES } from '../domain/webhook-event.js';
import { MayBeOmitted } from '../../../shared/http/may-be-omitted.js';

/** The largest `after` a query can carry: IntegerQueryParam reads at most 15 digits. */
const MAX_AFTER = 999_999_999_999_999;
const AFTER_RULE = `after must be an integer from 0 to ${MAX_AFTER} (a seq already read)`;
const LIMIT_RULE = `limit must be an integer from 1 to ${FEED_MAX_LIMIT}`;
const WAIT_RULE = `wait must be an integer from 0 to ${FEED_MAX_WAIT_SECONDS} (seconds)`;

export class EventFeedQueryDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: MAX_AFTER,
    default: 0,
    description: 'The last seq already read; 0 reads from the oldest event kept.',
  })
  @MayBeOmitted()
  @IntegerQueryParam()
  @IsInt({ message: AFTER_RULE })
  @Min(0, { message: AFTER_RULE })
  @Max(MAX_AFTER, { message: AFTER_RULE })
  after: number = 0;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: FEED_MAX_LIMIT, default: FEED_DEFAULT_LIMIT })
  @MayBeOmitted()
  @IntegerQueryParam()
  @IsInt({ message: LIMIT_RULE })
  @Min(1, { message: LIMIT_RULE })
  @Max(FEED_MAX_LIMIT, { message: LIMIT_RULE })
  limit: number = FEED_DEFAULT_LIMIT;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: FEED_MAX_WAIT_SECONDS,
    default: 0,
    description: 'Long polling: when nothing is after `after`, hold the request up to this many seconds for the next event.',
  })
  @MayBeOmitted()
  @IntegerQueryParam()
  @IsInt({ message: WAIT_RULE })
  @Min(0, { message: WAIT_RULE })
  @Max(FEED_MAX_WAIT_SECONDS, { message: WAIT_RULE })
  wait: number = 0;
}

export class FeedItemDto {
  @ApiProperty({ type: 'integer', description: 'Position in the feed: 1, 2, 3… per partner and environment, in commit order, with no gaps.' })
  seq: number;
  @ApiProperty({ format: 'uuid', description: 'The webhook-id of the deliveries of this event.' }) event_id: string;
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES }) event: string;
  @ApiProperty({ format: 'date-time' }) occurred_at: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'The event payload, as in its webhook; once its subscriber is erased, `subscriber_id` is null and `erased` true.',
  })
  data: Record<string, unknown>;
}

export class FeedPageDto {
  @ApiProperty({ type: [FeedItemDto] }) data: FeedItemDto[];
  @ApiProperty({ type: 'integer', description: 'Pass as `after` to read on.' }) next_after: number;
  @ApiProperty({ description: 'More events follow this page now: read on without waiting.' }) has_more: boolean;
}

export const feedPageDto = (page: FeedPage): FeedPageDto => ({
  data: page.items.map(feedItemDto),
  next_after: page.nextAfter,
  has_more: page.hasMore,
});

const feedItemDto = (item: FeedItem): FeedItemDto => ({
  seq: item.seq,
  event_id: item.event_id,
  event: item.event,
  occurred_at: item.occurred_at,
  data: item.data,
});
