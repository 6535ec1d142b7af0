import type { HeldIdempotencyKey, KeyedAnswer } from '../../../shared/idempotency/keyed-answer.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import type { Reader, ReleaseCondition } from '../../reading/index.js';
import type { PlaybackPosition } from './playback-position.js';

/** A stored position (null when none, or when a write was refused) and what decides its chapter's release. */
export interface PositionWithReader extends Reader {
  position: PlaybackPosition | null;
  /** Whether the keyed write's answer was stored with the position (only when one was given). */
  answerStored?: boolean;
}

/** A keyed write's answer, stored by the write's own statement when the position is (ADR 0144). */
export interface AnswerToStore {
  held: HeldIdempotencyKey;
  answer: KeyedAnswer;
}

/** Playback positions, one row per (partner, environment, subscriber, novel). */
export abstract class PlaybackPositionRepository {
  /**
   * If the position's chapter is released for the subscriber (`released`, tested against
   * the progress and the plan the statement itself reads), inserts or replaces the
   * subscriber's position in the novel (one row whatever the concurrency), records the
   * listening as reading activity unless the subscriber's listening to that chapter is
   * already recorded for the write's UTC day, and moves the novel's current chapter
   * forward: all of it or nothing. Otherwise writes nothing and answers no position.
   * With `answer`, the same statement stores the keyed request's answer when it stores the position.
   */
  abstract upsertListeningIfReleased(
    tenant: Tenant,
    subscriberId: string,
    position: PlaybackPosition,
    released: ReleaseCondition,
    answer?: AnswerToStore,
  ): Promise<PositionWithReader>;
  /** The stored position with the subscriber's progress and features: one statement. */
  abstract findWithReader(tenant: Tenant, subscriberId: string, novelId: string): Promise<PositionWithReader>;
  abstract delete(tenant: Tenant, subscriberId: string, novelId: string): Promise<void>;
}
