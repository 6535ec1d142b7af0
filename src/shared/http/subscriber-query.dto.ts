import { ApiProperty } from '@nestjs/swagger';
import { IsDefined } from 'class-validator';
import { IsSubscriberId } from './identifiers.js';

/** `?subscriber_id=` when an operation needs it (chapter text, the endings state): one rule wherever it is asked. */
export class SubscriberQueryDto {
  @ApiProperty({ description: "Partner's subscriber identifier.", example: 'sub-42' })
  @IsDefined({ message: 'subscriber_id is required' })
  @IsSubscriberId()
  subscriber_id: string;
}
