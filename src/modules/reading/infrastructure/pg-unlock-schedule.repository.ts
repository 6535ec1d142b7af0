import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/db.js';
import type { Environment, Tenant } from '../../../shared/tenancy/tenant.js';
import type { EntitlementGrant } from '../../entitlements/index.js';
import { UnlockScheduleRepository, type ReaderRows, type ScheduledUnlock, type UnlockCursor } from '../domain/unlock-schedule.js';

interface ScheduleRow {
  partnerId: string;
  environment: Environment;
  subscriberId: string;
  novelId: string;
  startedAt: Date;
  notBefore: Date;
  nextChapter: number;
  nextUnlockAt: Date;
  testClockId: string | null;
}

const SELECT_ROW = `partner_id AS "partnerId", environment, subscriber_id AS "subscriberId", novel_id AS "novelId",
  started_at AS "startedAt", not_before AS "notBefore", next_chapter AS "nextChapter", next_unlock_at AS "nextUnlockAt", test_clock_id AS "testClockId"`;

const toScheduled = ({ partnerId, environment, ...rest }: ScheduleRow): ScheduledUnlock => ({ tenant: { partnerId, environment }, ...rest });

const keyOf = (row: Pick<ScheduledUnlock, 'tenant' | 'subscriberId' | 'novelId'>) => [
  row.tenant.partnerId,
  row.tenant.environment,
  row.subscriberId,
  row.novelId,
];

/**
 * The real-time claim for one environment ($3): $1 the instant, $2 the batch size. Each
 * partner with a due row gets an equal share of the batch, its earliest due rows, so that
 * one partner's backlog delays another's announcements by one share, not by the backlog
 * (as the webhook claim, ADR 0060). The partners are found by skipping through the
 * (environment, partner, instant) index one partner at a time and asked for their earliest
 * instant: the cost grows with the partners that have rows, never with a backlog. Rows
 * another replica holds are skipped.
 */
const FAIR_CLAIM_SQL = `
  WITH RECURSIVE scheduled_partners AS (
    (SELECT partner_id FROM chapter_unlock_schedule
      WHERE environment = $3 AND test_clock_id IS NULL ORDER BY partner_id LIMIT 1)
    UNION ALL
    SELECT later.partner_id FROM scheduled_partners p
    CROSS JOIN LATERAL (
      SELECT partner_id FROM chapter_unlock_schedule
       WHERE environment = $3 AND test_clock_id IS NULL AND partner_id > p.partner_id
       ORDER BY partner_id LIMIT 1
    ) later
  ), due_partners AS (
    SELECT p.partner_id FROM scheduled_partners p
     WHERE (SELECT min(s.next_unlock_at) FROM chapter_unlock_schedule s
             WHERE s.environment = $3 AND s.partner_id = p.partner_id AND s.test_clock_id IS NULL) <= $1
  )
  SELECT share.* FROM due_partners p
  CROSS JOIN LATERAL (
    SELECT ${SELECT_ROW} FROM chapter_unlock_schedule s
     WHERE s.environment = $3 AND s.partner_id = p.partner_id AND s.test_clock_id IS NULL AND s.next_unlock_at <= $1
     ORDER BY s.next_unlock_at
     LIMIT (SELECT ceil($2::numeric / count(*))::int FROM due_partners)
     FOR UPDATE SKIP LOCKED
  ) share`;

/** Plain SQL on the shared connection: the job's statements must stay index-only on what is due. */
@Injectable()
export class PgUnlockScheduleRepository extends UnlockScheduleRepository {
  constructor(private readonly db: Db) {
    super();
  }

  async upsert(row: Omit<ScheduledUnlock, keyof UnlockCursor>, cursor: UnlockCursor | null): Promise<void> {
    if (!cursor) {
      await this.db.query(
        `DELETE FROM chapter_unlock_schedule WHERE partner_id = $1 AND environment = $2 AND subscriber_id = $3 AND novel_id = $4`,
        keyOf(row),
      );
      return;
    }
    await this.db.query(
      `INSERT INTO chapter_unlock_schedule (partner_id, environment, subscriber_id, novel_id, started_at, not_before, next_chapter, next_unlock_at, test_clock_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (partner_id, environment, subscriber_id, novel_id) DO UPDATE SET
         started_at = EXCLUDED.started_at, not_before = EXCLUDED.not_before,
         next_chapter = EXCLUDED.next_chapter, next_unlock_at = EXCLUDED.next_unlock_at, test_clock_id = EXCLUDED.test_clock_id`,
      [...keyOf(row), row.startedAt, row.notBefore, cursor.nextChapter, cursor.nextUnlockAt, row.testClockId],
    );
  }

  async claimDue(now: Date, limit: number, testClockId: string | null): Promise<ScheduledUnlock[]> {
    if (testClockId !== null) {
      const rows = await this.db.query<ScheduleRow>(
        `SELECT ${SELECT_ROW} FROM chapter_unlock_schedule WHERE test_clock_id = $3 AND next_unlock_at <= $1
          ORDER BY next_unlock_at LIMIT $2 FOR UPDATE`,
        [now, limit, testClockId],
      );
      return rows.map(toScheduled);
    }
    // Real time: the live readers' unlocks before any sandbox one (ADR 0151).
    for (const environment of ['live', 'sandbox'] as const) {
      const rows = await this.db.query<ScheduleRow>(FAIR_CLAIM_SQL, [now, limit, environment]);
      if (rows.length > 0) return rows.map(toScheduled);
    }
    return [];
  }

  async earliestOnClock(testClockId: string): Promise<Date | null> {
    const [{ earliest }] = await this.db.query<{ earliest: Date | null }>(
      `SELECT min(next_unlock_at) AS earliest FROM chapter_unlock_schedule WHERE test_clock_id = $1`,
      [testClockId],
    );
    return earliest;
  }

  async readerStates(rows: ScheduledUnlock[]): Promise<ReaderRows[]> {
    if (rows.length === 0) return [];
    // One statement for the batch: each row's reading, its novel's chapters and the
    // subscriber's entitlements (read only, as the hot reads do: ADR 0123), by primary key.
    const states = await this.db.query<{
      ord: number;
      startedAt: Date | null;
      finishedAt: Date | null;
      totalChapters: number | null;
      grants: EntitlementGrant[];
    }>(
      `SELECT k.ord, p.started_at AS "startedAt", p.finished_at AS "finishedAt", n.total_chapters AS "totalChapters",
              (SELECT coalesce(json_agg(json_build_object('product', e.product, 'status', e.status, 'internalPlan', e.internal_plan)), '[]')
                 FROM entitlements e
                WHERE e.partner_id = k.partner_id AND e.environment = k.environment AND e.subscriber_id = k.subscriber_id) AS grants
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS k (partner_id, environment, subscriber_id, novel_id, ord)
         LEFT JOIN novel_progress p USING (partner_id, environment, subscriber_id, novel_id)
         LEFT JOIN novels n ON n.environment = k.environment AND n.id = k.novel_id AND n.status = 'published'
        ORDER BY k.ord`,
      [rows.map((r) => r.tenant.partnerId), rows.map((r) => r.tenant.environment), rows.map((r) => r.subscriberId), rows.map((r) => r.novelId)],
    );
    return states.map((s) => ({
      progress: s.startedAt ? { startedAt: s.startedAt, finishedAt: s.finishedAt } : null,
      totalChapters: s.totalChapters,
      grants: s.grants,
    }));
  }

  async moveTo(row: ScheduledUnlock, cursor: UnlockCursor | null): Promise<void> {
    if (!cursor) {
      await this.upsert(row, null);
      return;
    }
    await this.db.query(
      `UPDATE chapter_unlock_schedule SET next_chapter = $5, next_unlock_at = $6
        WHERE partner_id = $1 AND environment = $2 AND subscriber_id = $3 AND novel_id = $4`,
      [...keyOf(row), cursor.nextChapter, cursor.nextUnlockAt],
    );
  }

  async listForSubscriber(tenant: Tenant, subscriberId: string): Promise<ScheduledUnlock[]> {
    const rows = await this.db.query<ScheduleRow>(
      `SELECT ${SELECT_ROW} FROM chapter_unlock_schedule WHERE partner_id = $1 AND environment = $2 AND subscriber_id = $3 FOR UPDATE`,
      [tenant.partnerId, tenant.environment, subscriberId],
    );
    return rows.map(toScheduled);
  }
}
