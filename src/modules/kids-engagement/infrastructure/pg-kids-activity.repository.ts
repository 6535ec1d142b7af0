import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/db.js';
import { ReportingDb } from '../../../shared/persistence/reporting-db.js';
import { defineStatement, sql, type SqlFragment } from '../../../shared/persistence/sql.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import type { ReportingWindow } from '../../analytics/index.js';
import { UnknownPartnerError } from '../../identity/index.js';
import type { KidsActivityRecord } from '../domain/kids-activity.js';
import { KidsActivityRepository, type ImportCounts, type KidsActivityTotals } from '../domain/kids-activity.repository.js';

const FOREIGN_KEY_VIOLATION = '23503';

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
      // repeated inside the batch keeps its last line (DISTINCT ON, highest position).
      const [counts] = await this.db.query<ImportCounts>(
        `WITH written AS (
           INSERT INTO kids_activity (partner_id, environment, account_id, child_ref, story_id, occurred_at, minutes, completed_at)
           SELECT DISTINCT ON (account_id, child_ref, story_id, occurred_at)
                  $1::uuid, $2, account_id, child_ref, story_id, occurred_at, minutes, completed_at
           FROM unnest($3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::numeric[], $8::timestamptz[]) WITH ORDINALITY
                AS batch (account_id, child_ref, story_id, occurred_at, minutes, completed_at, position)
           ORDER BY account_id, child_ref, story_id, occurred_at, position DESC
           ON CONFLICT (partner_id, environment, account_id, child_ref, story_id, occurred_at)
           DO UPDATE SET minutes = excluded.minutes, completed_at = excluded.completed_at, imported_at = now()
           RETURNING xmax = 0 AS inserted
         )
         SELECT count(*) FILTER (WHERE inserted)::int AS inserted, count(*) FILTER (WHERE NOT inserted)::int AS updated FROM written`,
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
      if ((error as { code?: string }).code === FOREIGN_KEY_VIOLATION) throw new UnknownPartnerError(`No partner ${tenant.partnerId}`);
      throw error;
    }
  }

  async totals(tenant: Tenant, window: ReportingWindow, accounts: SqlFragment): Promise<KidsActivityTotals> {
    // A session belongs to the window when it happened or was completed in it.
    // Built per call: the window's instants and the accounts' query are values of this report.
    const statement = defineStatement(
      [],
      () => sql`WITH accounts AS (${accounts})
        SELECT (SELECT count(*) FROM accounts)::int AS "activeAccounts",
               count(DISTINCT k.account_id)::int AS "accountsWithActivity",
               count(*) FILTER (WHERE k.completed_at >= ${window.from} AND k.completed_at < ${window.until})::int AS "storiesCompleted",
               coalesce(sum(k.minutes) FILTER (WHERE k.occurred_at >= ${window.from} AND k.occurred_at < ${window.until}), 0)::float8 AS "minutesRead"
          FROM kids_activity k JOIN accounts a ON a.subscriber_id = k.account_id
         WHERE k.partner_id = ${tenant.partnerId} AND k.environment = ${tenant.environment}
           AND ((k.occurred_at >= ${window.from} AND k.occurred_at < ${window.until}) OR (k.completed_at >= ${window.from} AND k.completed_at < ${window.until}))`,
    );
    const [row] = await this.reporting.query<KidsActivityTotals>(statement.text, statement.bind({}));
    return row;
  }
}
