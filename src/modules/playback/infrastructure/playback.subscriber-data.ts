import { Injectable } from '@nestjs/common';
import { SUBSCRIBER_KEY, SubscriberRows } from '../../../shared/persistence/subscriber-rows.js';
import type { ErasedCounts, ExportedSections } from '../../../shared/tenancy/subscriber-data.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';

/** A subscriber's playback positions, for export and erasure (DECISIONS 29): no aggregate counts from them. */
@Injectable()
export class PlaybackSubscriberData extends SubscriberRows {
  readonly name = 'playback positions';
  protected readonly tables = ['playback_positions'];

  async export(tenant: Tenant, subscriberId: string): Promise<ExportedSections> {
    const positions = await this.rows(
      `SELECT novel_id, chapter_number, position_seconds, updated_at FROM playback_positions WHERE ${SUBSCRIBER_KEY} ORDER BY novel_id`,
      tenant,
      subscriberId,
    );
    return { playback_positions: positions };
  }

  async erase(tenant: Tenant, subscriberId: string): Promise<Partial<ErasedCounts>> {
    return { listening: await this.deleteRows('playback_positions', tenant, subscriberId) };
  }
}
