import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsString, Length } from 'class-validator';
import { IsIsoInstant } from '../../../shared/http/date-time.js';
import { MayBeOmitted } from '../../../shared/http/may-be-omitted.js';
import type { TestClock } from '../domain/test-clock.js';

export class CreateTestClockDto {
  @ApiProperty({
    format: 'date-time',
    // No example: a fixed instant leaves the year around the real time (openapi-examples spec).
    description: '"Now" for the subscribers attached to the clock, e.g. the current time; within a year of the real time, either way.',
  })
  @IsDefined({ message: 'frozen_time is required' })
  @IsIsoInstant('frozen_time')
  frozen_time: string;

  @ApiPropertyOptional({ example: 'drip in a minute', description: 'A label of your own.', maxLength: 100 })
  @MayBeOmitted()
  @IsString({ message: 'name must be a string' })
  @Length(1, 100, { message: 'name must be 1 to 100 characters' })
  name?: string;
}

export class AdvanceTestClockDto {
  @ApiProperty({
    format: 'date-time',
    description:
      "The clock's new time: later than its current one (the same one again changes nothing), at most a year after it, and within a year of the real time.",
  })
  @IsDefined({ message: 'frozen_time is required' })
  @IsIsoInstant('frozen_time')
  frozen_time: string;
}

export class TestClockDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ type: String, nullable: true, example: 'drip in a minute' }) name: string | null;
  @ApiProperty({ format: 'date-time', example: '2026-12-01T09:00:00Z' }) frozen_time: string;
  @ApiProperty({ type: [String], example: ['sub-clock-1'], description: 'The attached sandbox subscribers, in the order they were attached.' })
  subscribers: string[];
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class TestClockListDto {
  @ApiProperty({ type: [TestClockDto], description: 'Oldest first.' }) data: TestClockDto[];
}

export function testClockDto(clock: TestClock): TestClockDto {
  return {
    id: clock.id,
    name: clock.name,
    frozen_time: clock.frozenTime.toISOString(),
    subscribers: clock.subscriberIds,
    created_at: clock.createdAt.toISOString(),
  };
}
