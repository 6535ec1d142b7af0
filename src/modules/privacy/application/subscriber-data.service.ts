import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '../../../shared/persistence/unit-of-work.js';
import { SubscriberDataRegistry, type ErasedCounts, type ExportedSections } from '../../../shared/tenancy/subscriber-data.js';
import type { Environment, Tenant } from '../../../shared/tenancy/tenant.js';

type Row = Record<string, unknown>;

/** Everything held about a subscriber in one environment, section by section as its modules built them. */
export interface SubscriberExport {
  subscriberId: string;
  environment: Environment;
  exportedAt: Date;
  entitlements: { current: Row[]; history: Row[] };
  novels: Row[];
  playbackPositions: Row[];
  streamUrls: Row[];
  events: Row[];
  kidsSessions: Row[];
  testClock: Row | null;
}

export interface SubscriberErasure {
  subscriberId: string;
  environment: Environment;
  erasedAt: Date;
  erased: ErasedCounts;
}

/**
 * A subscriber's export and erasure (DECISIONS 29), over the registry every module that
 * holds subscriber data feeds: this service knows no table.
 */
@Injectable()
export class SubscriberDataService {
  constructor(
    private readonly registry: SubscriberDataRegistry,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  async export(tenant: Tenant, subscriberId: string): Promise<SubscriberExport> {
    const exportedAt = new Date();
    const sections = await this.unitOfWork.run(() => this.registry.export(tenant, subscriberId));
    const list = (section: keyof ExportedSections) => (sections[section] as Row[] | undefined) ?? [];
    return {
      subscriberId,
      environment: tenant.environment,
      exportedAt,
      entitlements: (sections.entitlements as SubscriberExport['entitlements'] | undefined) ?? { current: [], history: [] },
      novels: novelsWithChapters(list('novels'), list('chapters_read')),
      playbackPositions: list('playback_positions'),
      streamUrls: list('stream_urls'),
      events: list('events'),
      kidsSessions: list('kids_sessions'),
      testClock: (sections.test_clock as Row | null | undefined) ?? null,
    };
  }

  /** One transaction (ADR 0138): all of it or nothing. Again: nothing is left, every count is 0. */
  async erase(tenant: Tenant, subscriberId: string): Promise<SubscriberErasure> {
    const erased = await this.unitOfWork.run(() => this.registry.erase(tenant, subscriberId));
    return { subscriberId, environment: tenant.environment, erasedAt: new Date(), erased };
  }
}

/**
 * Each novel opened with the chapters read in it (reading owns the first, analytics the
 * second); a novel with activity but no longer opened (removed) is listed without progress.
 */
function novelsWithChapters(novels: Row[], chaptersRead: Row[]): Row[] {
  const byNovel = new Map<unknown, Row[]>();
  for (const { novel_id: novelId, ...chapter } of chaptersRead) byNovel.set(novelId, [...(byNovel.get(novelId) ?? []), chapter]);
  const opened = novels.map((novel) => ({ ...novel, chapters_read: byNovel.get(novel.novel_id) ?? [] }));
  const openedIds = new Set(novels.map((novel) => novel.novel_id));
  const notOpened = [...byNovel]
    .filter(([novelId]) => !openedIds.has(novelId))
    .map(([novelId, chapters]) => ({ novel_id: novelId, started_at: null, finished_at: null, choice_id: null, chapters_read: chapters, progress: null }));
  return [...opened, ...notOpened];
}

/** The erasure's answer, as the HTTP route and `subscriber:erase` both print it. */
export function erasureDocument(erasure: SubscriberErasure) {
  return {
    subscriber_id: erasure.subscriberId,
    environment: erasure.environment,
    erased_at: erasure.erasedAt.toISOString(),
    erased: erasure.erased,
  };
}
