import type { Tenant } from '../../../shared/tenancy/tenant.js';
import type { PlaybackPosition } from './playback-position.js';

/** Playback positions, one row per (partner, environment, subscriber, novel). */
export abstract class PlaybackPositionRepository {
  /**
   * Inserts or replaces the subscriber's position in the novel (one row whatever the
   * concurrency) and, in the same statement, records the listening as reading
   * activity and moves the novel's current chapter forward: one round trip, atomic.
   */
  abstract upsertListening(tenant: Tenant, subscriberId: string, position: PlaybackPosition): Promise<PlaybackPosition>;
  abstract find(tenant: Tenant, subscriberId: string, novelId: string): Promise<PlaybackPosition | null>;
  abstract delete(tenant: Tenant, subscriberId: string, novelId: string): Promise<void>;
}
