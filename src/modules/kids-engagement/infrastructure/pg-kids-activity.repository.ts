import { Injectable } from '@nestjs/common';
import { isForeignKeyViolation } from '../../../shared/persistence/database-errors.js';
import { Db } from '../../../shared/persistence/db.js';
import { ReportingDb } from '../../../shared/persistence/reporting-db.js';
import { defineStatement, sql } from '../../../shared/persistence/sql.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import type { ReportingWindow } from '../../analytics/index.js';
import { UnknownPartnerError } from '../../identity/index.js';
import type { KidsActivityRecord } from '../domain/kids-activity.js';
import { subscribersActiveDuringAmong } from '../../entitlements/queries.js';
import { KidsActivityRepository, type ImportCounts, type KidsActivityTotals } from '../domain/kids-activity.repository.js';

@Injectable()
export class PgKidsActivityRepository extends KidsActivityRepository {
  constructor(
    private readonly db: Db,
    /** The summary tolerates seconds of lag: it may read on the standby (ADR 0122). */
    private readonly reporting: ReportingDb,
  ) {
    super();
  }

  async upsert(tenant: Tenant, records: readonly KidsActivityRecord[]): Promise<ImportCounts> {
    try {
      // One statement per batch; ON CONFLICT may touch a row once per statement, so a key
      // repeated inside the batch keeps its last line (DISTINCT ON, highest position). Every
      // CTE reads the table as it was before the statement: `replaced` sees the completions
      // the batch overwrites, whose months the batch changes too.
      const [counts] = await this.db.query<ImportCounts>(
        `WITH batch AS MATERIALIZED (
           SELECT DISTINCT ON (account_id, child_ref, story_id, occurred_at) account_id, child_ref, story_id, occurred_at, minutes, completed_at
           FROM unnest($3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::numeric[], $8::timestamptz[]) WITH ORDINALITY
                AS batch (account_id, child_ref, story_id, occurred_at, minutes, completed_at, position)
           ORDER BY account_id, child_ref, story_id, occurred_at, position DESC
         ), replaced AS (
           SELECT k.completed_at FROM kids_activity k JOIN batch b USING (account_id, child_ref, story_id, occurred_at)
            WHERE k.partner_id = $1 AND k.environment = $2 AND k.completed_at IS NOT NULL
         ), written AS (
           INSERT INTO kids_activity (partner_id, environment, account_id, child_ref, story_id, occurred_at, minutes, completed_at)
           SELECT $1::uuid, $2, account_id, child_ref, story_id, occurred_at, minutes, completed_at FROM batch
           ON CONFLICT (partner_id, environment, account_id, child_ref, story_id, occurred_at)
           DO UPDATE SET minutes = excluded.minutes, completed_at = excluded.completed_at, imported_at = now()
           RETURNING xmax = 0 AS inserted
         )
         SELECT count(*) FILTER (WHERE inserted)::int AS inserted, count(*) FILTER (WHERE NOT inserted)::int AS updated,
                (SELECT coalesce(array_agg(DISTINCT to_char(date_trunc('month', instant AT TIME ZONE 'UTC'), 'YYYY-MM-DD')), '{}')
                   FROM (SELECT occurred_at FROM batch UNION ALL SELECT completed_at FROM batch UNION ALL SELECT completed_at FROM replaced) AS touched (instant)
                  WHERE instant IS NOT NULL) AS months
           FROM written`,
        [
          tenant.partnerId,
          tenant.environment,
          records.map((r) => r.accountId),
          records.map((r) => r.childRef),
          records.map((r) => r.storyId),
          records.map((r) => r.occurredAt.toISOString()),
          records.map((r) => r.minutes),
          records.map((r) => r.completedAt?.toISOString() ?? null),
        ],
      );
      return counts;
    } catch (error) {
      if (isForeignKeyViolation(error)) throw new UnknownPartnerError(`No partner ${tenant.partnerId}`);
      throw error;
    }
  }

  async totals(tenant: Tenant, window: ReportingWindow, enough: number): Promise<KidsActivityTotals> {
    // ADR 0133: the sessions of accounts entitled at their own instant come summed per day;
    // the others are read one by one and their accounts checked against the window. The
    // accounts with activity are walked in time order until `enough` distinct ones.
    const tenantIs = sql`partner_id = ${tenant.partnerId} AND environment = ${tenant.environment}`;
    const { from, until } = window;
    const statement = defineStatement(
      [],
      () => sql`WITH RECURSIVE marked AS (
          SELECT coalesce(sum(count) FILTER (WHERE measure = 'minutes'), 0) AS minutes,
                 coalesce(sum(count) FILTER (WHERE measure = 'completions'), 0) AS completions
            FROM kids_day_counts
           WHERE ${tenantIs} AND day >= (${from}::timestamptz AT TIME ZONE 'UTC')::date AND day < (${until}::timestamptz AT TIME ZONE 'UTC')::date
        ), unmarked AS MATERIALIZED (
          SELECT account_id, minutes, 0 AS completions FROM kids_activity
           WHERE ${tenantIs} AND NOT entitled_at_occurrence AND occurred_at >= ${from} AND occurred_at < ${until}
          UNION ALL
          SELECT account_id, 0, 1 FROM kids_activity
           WHERE ${tenantIs} AND completed_at IS NOT NULL AND NOT entitled_at_completion AND completed_at >= ${from} AND completed_at < ${until}
        ), entitled AS (${subscribersActiveDuringAmong(tenant, 'kidsapp', from, until, sql`SELECT DISTINCT account_id FROM unmarked`)}
        ), counted AS (
          SELECT u.account_id, u.minutes, u.completions FROM unmarked u JOIN entitled e ON e.subscriber_id = u.account_id
        ), walk (accounts, at) AS (
          SELECT ARRAY[]::text[], ${from}::timestamptz
          UNION ALL
          SELECT w.accounts || n.account_id, n.at FROM walk w CROSS JOIN LATERAL (
            (SELECT account_id, occurred_at AS at FROM kids_activity
              WHERE ${tenantIs} AND entitled_at_occurrence AND occurred_at >= w.at AND occurred_at < ${until} AND account_id <> ALL (w.accounts)
              ORDER BY occurred_at LIMIT 1)
            UNION ALL
            (SELECT account_id, completed_at FROM kids_activity
              WHERE ${tenantIs} AND entitled_at_completion AND completed_at >= w.at AND completed_at < ${until} AND account_id <> ALL (w.accounts)
              ORDER BY completed_at LIMIT 1)
            ORDER BY at LIMIT 1) AS n
           WHERE cardinality(w.accounts) < ${enough}
        ), walked AS (
          SELECT accounts FROM walk ORDER BY cardinality(accounts) DESC LIMIT 1
        )
        SELECT (SELECT count(*) FROM (SELECT unnest(accounts) FROM walked UNION SELECT account_id FROM counted) AS active)::int AS "accountsWithActivity",
               ((SELECT completions FROM marked) + (SELECT coalesce(sum(completions), 0) FROM counted))::int AS "storiesCompleted",
               ((SELECT minutes FROM marked) + (SELECT coalesce(sum(minutes), 0) FROM counted))::float8 AS "minutesRead"`,
    );
    const [row] = await this.reporting.query<KidsActivityTotals>(statement.text, statement.bind({}));
    return row;
  }
}
