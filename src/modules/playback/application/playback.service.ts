import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DomainError, invalidRequest } from '../../../shared/errors/domain-error.js';
import type { AnswerWithWork } from '../../../shared/idempotency/keyed-answer.js';
import { SubscriberClock } from '../../../shared/tenancy/subscriber-clock.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { CatalogService, chapterIdOf, chapterNumberOf } from '../../catalog/index.js';
import { ChapterReleaseService, notReleasedReason, ReadingLifecycleHooks, releaseCondition } from '../../reading/index.js';
import type { PlaybackPosition } from '../domain/playback-position.js';
import { PlaybackPositionRepository } from '../domain/playback-position.repository.js';

export interface PlaybackWrite {
  novelId: string;
  chapterId: string;
  positionSeconds: number;
}

/**
 * Listening positions (DECISIONS 12). Only released chapters can be stored or returned:
 * a position in an unreleased chapter is a 400 invalid_request saying so (contract 7).
 */
@Injectable()
export class PlaybackService implements OnModuleInit {
  constructor(
    private readonly positions: PlaybackPositionRepository,
    private readonly catalog: CatalogService,
    private readonly releases: ChapterReleaseService,
    private readonly hooks: ReadingLifecycleHooks,
    private readonly clock: SubscriberClock,
  ) {}

  /** A removed novel takes its playback position with it (DECISIONS 7). */
  onModuleInit(): void {
    this.hooks.onNovelRemoved((tenant, subscriberId, novelId) => this.positions.delete(tenant, subscriberId, novelId));
  }

  /**
   * Stores the position (last write wins), records listening activity and moves
   * current_chapter forward, atomically, with the check that the chapter is released (the
   * drip as a condition on the start the statement reads): one statement for the usual save.
   * A keyed PUT's answer is stored by that statement too (`keyed`, ADR 0144): the answer is
   * known before it runs, as the statement stores exactly the position it is given.
   */
  async write(tenant: Tenant, subscriberId: string, write: PlaybackWrite, keyed?: AnswerWithWork<PlaybackPosition>): Promise<PlaybackPosition> {
    const chapterNumber = chapterNumberOf(write.novelId, write.chapterId);
    if (chapterNumber === null) {
      throw invalidRequest(
        `chapter_id must name a chapter of novel "${write.novelId}" as ${chapterIdOf(write.novelId, 1)}, ${chapterIdOf(write.novelId, 2)}, …`,
      );
    }
    const [novel, now] = await Promise.all([this.catalog.publishedNovel(tenant.environment, write.novelId), this.clock.now(tenant, subscriberId)]);
    if (chapterNumber > novel.totalChapters) {
      throw invalidRequest(`chapter_id "${write.chapterId}" names no chapter of novel "${novel.id}": it has ${novel.totalChapters}.`);
    }
    // The release is judged at the subscriber's now (a test clock's); the write, and the
    // listening it records for analytics, happen at the real time.
    const position = { novelId: novel.id, chapterNumber, positionSeconds: write.positionSeconds, updatedAt: new Date() };
    const answer = keyed && { held: keyed.held, answer: keyed.answerFor(position) };
    const written = await this.positions.upsertListeningIfReleased(tenant, subscriberId, position, releaseCondition(chapterNumber, now), answer);
    if (!written.position) throw invalidRequest(notReleasedReason(novel.id, chapterNumber, this.releases.releaseOf(written, chapterNumber, now)));
    if (answer && written.answerStored) answer.held.storedInWork = answer.answer;
    return written.position;
  }

  /** The stored position; not_found when none, invalid_request when its chapter is no longer released (the plan lost early access). */
  async read(tenant: Tenant, subscriberId: string, novelId: string): Promise<PlaybackPosition> {
    await this.catalog.publishedNovel(tenant.environment, novelId);
    const [found, now] = await Promise.all([this.positions.findWithReader(tenant, subscriberId, novelId), this.clock.now(tenant, subscriberId)]);
    if (!found.position) throw new DomainError('not_found', `No playback position is stored for subscriber "${subscriberId}" in novel "${novelId}".`);
    const release = this.releases.releaseOf(found, found.position.chapterNumber, now);
    if (!release.released) throw invalidRequest(notReleasedReason(novelId, found.position.chapterNumber, release));
    return found.position;
  }
}
