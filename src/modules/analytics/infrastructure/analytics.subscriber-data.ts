import { Injectable } from '@nestjs/common';
import { exemptSubscriberColumn, SUBSCRIBER_KEY, SubscriberRows } from '../../../shared/persistence/subscriber-rows.js';
import type { ErasedCounts, ExportedSections } from '../../../shared/tenancy/subscriber-data.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';

/** The advisory locks the rollup trigger takes per partner and per reader (migration 1763900400000). */
const ROLLUP_PARTNER_LOCK_CLASS = 7_340_114;
const ROLLUP_SUBSCRIBER_LOCK_CLASS = 7_340_115;

const ROLLUP_REASON =
  "Derived from reading_activity, which is exported. Erasure gives the rows the erasure's random stand-in instead of the id: " +
  'past engagement reports count distinct readers and chapters from them, and must answer as before (DECISIONS 29).';

/** The rollups of reading activity: erased (their ids replaced) but not exported, and why. */
export const ANALYTICS_EXEMPT_COLUMNS = [
  exemptSubscriberColumn('reading_reader_days.subscriber_id', ROLLUP_REASON),
  exemptSubscriberColumn('reading_chapter_days.subscriber_id', ROLLUP_REASON),
];

/**
 * A subscriber's reading activity (chapter text read, playback positions written), for
 * export and erasure (DECISIONS 29). Both read `reading_activity` through its index by
 * subscriber (migration 1764201000000), never a scan of every partner's activity
 * (docs/privacy.md, "Erasure, measured"). The raw rows go; the per-day rollups keep the
 * erasure's stand-in, so that the engagement report of any window counts as before (their
 * update of `subscriber_id` fires no counting trigger).
 */
@Injectable()
export class AnalyticsSubscriberData extends SubscriberRows {
  readonly name = 'reading activity';
  protected readonly tables = ['reading_activity', 'reading_reader_days', 'reading_chapter_days'];

  override get columns(): readonly string[] {
    return ['reading_activity.subscriber_id'];
  }

  async export(tenant: Tenant, subscriberId: string): Promise<ExportedSections> {
    const chaptersRead = await this.rows(
      `SELECT novel_id, chapter_number, kind, occurred_at FROM reading_activity WHERE ${SUBSCRIBER_KEY} ORDER BY occurred_at, novel_id, chapter_number`,
      tenant,
      subscriberId,
    );
    return { chapters_read: chaptersRead };
  }

  async erase(tenant: Tenant, subscriberId: string, standIn: string): Promise<Partial<ErasedCounts>> {
    // Writers of this reader's activity wait (their rollup would chain onto rows changing here).
    await this.db.query(
      `SELECT pg_advisory_xact_lock_shared(${ROLLUP_PARTNER_LOCK_CLASS}, hashtext($1::text || ' ' || $2)),
              pg_advisory_xact_lock(${ROLLUP_SUBSCRIBER_LOCK_CLASS}, hashtext($1::text || ' ' || $2 || ' ' || $3))`,
      this.key(tenant, subscriberId),
    );
    const [erased] = await this.db.query<{ text: number; audio: number }>(
      `WITH gone AS (DELETE FROM reading_activity WHERE ${SUBSCRIBER_KEY} RETURNING kind)
       SELECT count(*) FILTER (WHERE kind = 'text')::int AS text, count(*) FILTER (WHERE kind = 'audio')::int AS audio FROM gone`,
      this.key(tenant, subscriberId),
    );
    await this.replaceWithStandIn('reading_chapter_days', tenant, subscriberId, standIn);
    await this.replaceWithStandIn('reading_reader_days', tenant, subscriberId, standIn);
    return { reading: erased.text, listening: erased.audio };
  }
}
