import { Injectable } from '@nestjs/common';
import type { Tenant } from '../../../shared/tenancy/tenant.js';

export type NovelRemovalHook = (tenant: Tenant, subscriberId: string, novelId: string) => Promise<void>;

/**
 * Lets modules that build on reading (playback) clean up their own rows when a subscriber
 * removes a novel, without reading depending on them. Hooks run inside the removal's
 * transaction: they commit or roll back with it.
 */
@Injectable()
export class ReadingLifecycleHooks {
  private readonly removalHooks: NovelRemovalHook[] = [];

  onNovelRemoved(hook: NovelRemovalHook): void {
    this.removalHooks.push(hook);
  }

  async novelRemoved(tenant: Tenant, subscriberId: string, novelId: string): Promise<void> {
    for (const hook of this.removalHooks) await hook(tenant, subscriberId, novelId);
  }
}
