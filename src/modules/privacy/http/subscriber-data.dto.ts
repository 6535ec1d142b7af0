import { ApiProperty } from '@nestjs/swagger';
import { ENVIRONMENTS } from '../../../shared/tenancy/tenant.js';
import type { SubscriberExport } from '../application/subscriber-data.service.js';

const INSTANT = { type: String, format: 'date-time' } as const;
const MAYBE_INSTANT = { type: String, format: 'date-time', nullable: true } as const;
const PRODUCTS = ['textapp', 'audioapp', 'kidsapp'];
const STATUSES = ['active', 'suspended', 'canceled'];

export class ExportedEntitlementDto {
  @ApiProperty({ enum: PRODUCTS }) product: string;
  @ApiProperty({ enum: STATUSES }) status: string;
  @ApiProperty({ type: String, nullable: true, description: 'The partner plan last sent.' }) plan: string | null;
  @ApiProperty({ description: 'The internal plan it maps to.' }) internal_plan: string;
  @ApiProperty(INSTANT) created_at: string;
  @ApiProperty(INSTANT) updated_at: string;
  @ApiProperty({ ...INSTANT, description: 'When the last applied change happened at the partner.' }) effective_at: string;
}

export class ExportedEntitlementChangeDto {
  @ApiProperty({ enum: PRODUCTS }) product: string;
  @ApiProperty({ enum: STATUSES, nullable: true, type: String, description: 'null: the change created the entitlement.' }) old_status: string | null;
  @ApiProperty({ enum: STATUSES }) new_status: string;
  @ApiProperty({ type: String, nullable: true }) plan: string | null;
  @ApiProperty() internal_plan: string;
  @ApiProperty({ description: 'The client id that sent it.' }) changed_by: string;
  @ApiProperty({ ...INSTANT, description: 'When it was received.' }) changed_at: string;
  @ApiProperty({ ...INSTANT, description: 'When it happened at the partner.' }) effective_at: string;
  @ApiProperty({ description: 'false: it arrived older than the record and changed nothing (DECISIONS 24).' }) applied: boolean;
}

export class ExportedEntitlementsDto {
  @ApiProperty({ type: [ExportedEntitlementDto], description: 'One per product.' }) current: ExportedEntitlementDto[];
  @ApiProperty({ type: [ExportedEntitlementChangeDto], description: 'Every change received, oldest first.' }) history: ExportedEntitlementChangeDto[];
}

export class ExportedChapterReadDto {
  @ApiProperty({ type: 'integer', minimum: 1 }) chapter_number: number;
  @ApiProperty({ enum: ['text', 'audio'], description: 'text: the chapter text was read; audio: a playback position was saved in it.' }) kind: string;
  @ApiProperty(INSTANT) occurred_at: string;
}

export class ExportedProgressDto {
  @ApiProperty({ type: 'integer', minimum: 1 }) current_chapter: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'The next chapter to unlock; null when none is due.' }) next_chapter: number | null;
  @ApiProperty(MAYBE_INSTANT) next_unlock_at: string | null;
}

export class ExportedNovelDto {
  @ApiProperty() novel_id: string;
  @ApiProperty({ ...MAYBE_INSTANT, description: 'null for a novel with activity that was removed since.' }) started_at: string | null;
  @ApiProperty(MAYBE_INSTANT) finished_at: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The ending chosen.' }) choice_id: string | null;
  @ApiProperty({ type: [ExportedChapterReadDto], description: 'Each recorded reading or listening, oldest first.' }) chapters_read: ExportedChapterReadDto[];
  @ApiProperty({ type: ExportedProgressDto, nullable: true }) progress: ExportedProgressDto | null;
}

export class ExportedPlaybackPositionDto {
  @ApiProperty() novel_id: string;
  @ApiProperty({ type: 'integer', minimum: 1 }) chapter_number: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) position_seconds: number;
  @ApiProperty(INSTANT) updated_at: string;
}

export class ExportedStreamUrlDto {
  @ApiProperty() novel_id: string;
  @ApiProperty({ type: 'integer', minimum: 1 }) chapter_number: number;
  @ApiProperty({ description: 'The credential that asked for it.' }) client_id: string;
  @ApiProperty(INSTANT) issued_at: string;
  @ApiProperty(INSTANT) expires_at: string;
}

export class ExportedEventDto {
  @ApiProperty({ type: 'integer', minimum: 1, description: 'Its position in the event feed.' }) seq: number;
  @ApiProperty({ format: 'uuid' }) event_id: string;
  @ApiProperty({ enum: ['novel.finished', 'chapter.unlocked'] }) event: string;
  @ApiProperty(INSTANT) occurred_at: string;
  @ApiProperty({ type: 'object', additionalProperties: true, description: 'The event payload, as in its webhook.' }) data: Record<string, unknown>;
}

export class ExportedKidsSessionDto {
  @ApiProperty({ description: "The partner's reference of the child." }) child_ref: string;
  @ApiProperty() story_id: string;
  @ApiProperty({ type: 'number', minimum: 0 }) minutes: number;
  @ApiProperty(MAYBE_INSTANT) completed_at: string | null;
  @ApiProperty(INSTANT) occurred_at: string;
  @ApiProperty({ ...INSTANT, description: 'When kids:import loaded it.' }) imported_at: string;
}

export class ExportedTestClockDto {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ type: String, nullable: true }) name: string | null;
  @ApiProperty(INSTANT) frozen_time: string;
  @ApiProperty(INSTANT) attached_at: string;
}

export class SubscriberExportDto {
  @ApiProperty() subscriber_id: string;
  @ApiProperty({ enum: ENVIRONMENTS, description: "The token's environment: the only one exported." }) environment: string;
  @ApiProperty(INSTANT) exported_at: string;
  @ApiProperty({ type: ExportedEntitlementsDto }) entitlements: ExportedEntitlementsDto;
  @ApiProperty({ type: [ExportedNovelDto], description: 'Every novel opened (including those finished), with its reading.' }) novels: ExportedNovelDto[];
  @ApiProperty({ type: [ExportedPlaybackPositionDto] }) playback_positions: ExportedPlaybackPositionDto[];
  @ApiProperty({ type: [ExportedStreamUrlDto], description: 'The stream URLs issued, as audited (the URLs themselves are not kept).' })
  stream_urls: ExportedStreamUrlDto[];
  @ApiProperty({ type: [ExportedEventDto], description: 'The events in the feed that name the subscriber, in feed order.' }) events: ExportedEventDto[];
  @ApiProperty({ type: [ExportedKidsSessionDto], description: "Children's reading sessions of the account." }) kids_sessions: ExportedKidsSessionDto[];
  @ApiProperty({ type: ExportedTestClockDto, nullable: true, description: 'The sandbox test clock it is attached to; null when none.' })
  test_clock: ExportedTestClockDto | null;
}

export class ErasedCountsDto {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Entitlements and changes in their history.' }) entitlements: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Novels opened and chapter texts read.' }) reading: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Playback positions and chapters listened to.' }) listening: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Endings chosen.' }) endings: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Stream URLs issued (audit records).' }) stream_urls: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Events in the feed, kept with subscriber_id null and erased true.' }) events: number;
  @ApiProperty({ type: 'integer', minimum: 0, description: "Children's reading sessions." }) kids_sessions: number;
}

export class SubscriberErasureDto {
  @ApiProperty() subscriber_id: string;
  @ApiProperty({ enum: ENVIRONMENTS }) environment: string;
  @ApiProperty(INSTANT) erased_at: string;
  @ApiProperty({ type: ErasedCountsDto, description: 'What this request removed, per kind: all 0 when nothing was left.' }) erased: ErasedCountsDto;
}

type Row = Record<string, unknown>;
const instant = (value: unknown) => (value instanceof Date ? value.toISOString() : (value as string | null));

export function subscriberExportDto(data: SubscriberExport): SubscriberExportDto {
  return {
    subscriber_id: data.subscriberId,
    environment: data.environment,
    exported_at: data.exportedAt.toISOString(),
    entitlements: data.entitlements as unknown as ExportedEntitlementsDto,
    novels: data.novels.map((novel: Row) => ({
      novel_id: novel.novel_id as string,
      started_at: instant(novel.started_at),
      finished_at: instant(novel.finished_at),
      choice_id: novel.choice_id as string | null,
      chapters_read: novel.chapters_read as ExportedChapterReadDto[],
      progress: novel.progress as ExportedProgressDto | null,
    })),
    playback_positions: data.playbackPositions as unknown as ExportedPlaybackPositionDto[],
    stream_urls: data.streamUrls as unknown as ExportedStreamUrlDto[],
    events: data.events as unknown as ExportedEventDto[],
    kids_sessions: data.kidsSessions as unknown as ExportedKidsSessionDto[],
    test_clock: data.testClock as unknown as ExportedTestClockDto | null,
  };
}
