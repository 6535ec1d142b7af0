import { Injectable } from '@nestjs/common';
import { SUBSCRIBER_KEY, SubscriberRows } from '../../../shared/persistence/subscriber-rows.js';
import type { ErasedCounts, ExportedSections } from '../../../shared/tenancy/subscriber-data.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';

/**
 * The novels a subscriber opened and their unlock schedule, for export and erasure
 * (DECISIONS 29). The engagement report counts novels started, finished and endings chosen
 * per day from `novel_progress` through triggers that would take a deleted row out of past
 * days; so erasure keeps those rows under the erasure's stand-in (an update of
 * `subscriber_id` fires none of them) and deletes the schedule, which only looks ahead.
 */
@Injectable()
export class ReadingSubscriberData extends SubscriberRows {
  readonly name = 'novels opened';
  protected readonly tables = ['chapter_unlock_schedule', 'novel_progress'];

  async export(tenant: Tenant, subscriberId: string): Promise<ExportedSections> {
    const novels = await this.rows(
      `SELECT p.novel_id, p.started_at, p.finished_at, p.chosen_choice_id AS choice_id,
              json_build_object('current_chapter', p.current_chapter, 'next_chapter', s.next_chapter, 'next_unlock_at', s.next_unlock_at) AS progress
         FROM novel_progress p
         LEFT JOIN chapter_unlock_schedule s USING (partner_id, environment, subscriber_id, novel_id)
        WHERE p.partner_id = $1 AND p.environment = $2 AND p.subscriber_id = $3 ORDER BY p.started_at, p.novel_id`,
      tenant,
      subscriberId,
    );
    return { novels };
  }

  async erase(tenant: Tenant, subscriberId: string, standIn: string): Promise<Partial<ErasedCounts>> {
    await this.deleteRows('chapter_unlock_schedule', tenant, subscriberId);
    const [{ endings }] = await this.db.query<{ endings: number }>(
      `SELECT count(*)::int AS endings FROM novel_progress WHERE ${SUBSCRIBER_KEY} AND chosen_choice_id IS NOT NULL`,
      this.key(tenant, subscriberId),
    );
    const reading = await this.replaceWithStandIn('novel_progress', tenant, subscriberId, standIn);
    return { reading, endings };
  }
}
