import type { Tenant } from '../../../shared/tenancy/tenant.js';
import type { PlaybackPosition } from './playback-position.js';

/** Playback positions, one row per (partner, environment, subscriber, novel). */
export abstract class PlaybackPositionRepository {
  /** Inserts or replaces the subscriber's position in the novel, in one statement whatever the concurrency. */
  abstract upsert(tenant: Tenant, subscriberId: string, position: PlaybackPosition): Promise<PlaybackPosition>;
  abstract find(tenant: Tenant, subscriberId: string, novelId: string): Promise<PlaybackPosition | null>;
  abstract delete(tenant: Tenant, subscriberId: string, novelId: string): Promise<void>;
}
