import { Injectable } from '@nestjs/common';
import { Listeners } from '../../../shared/listeners.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';

export type NovelRemovalHook = (tenant: Tenant, subscriberId: string, novelId: string) => Promise<void>;

/**
 * Lets modules that build on reading (playback) clean up their own rows when a subscriber
 * removes a novel, without reading depending on them. Hooks run inside the removal's
 * transaction: they commit or roll back with it.
 */
@Injectable()
export class ReadingLifecycleHooks {
  private readonly removal = new Listeners<Parameters<NovelRemovalHook>>();

  onNovelRemoved(hook: NovelRemovalHook): void {
    this.removal.add(hook);
  }

  novelRemoved(tenant: Tenant, subscriberId: string, novelId: string): Promise<void> {
    return this.removal.notify(tenant, subscriberId, novelId);
  }
}
