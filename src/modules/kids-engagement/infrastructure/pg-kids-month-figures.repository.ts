import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/db.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import type { KidsMonthFigures } from '../domain/kids-engagement-summary.js';
import { KidsMonthFiguresRepository } from '../domain/kids-month-figures.repository.js';

const figuresRow = (tenant: Tenant, figures: Omit<KidsMonthFigures, 'fixedAt'>) => [
  tenant.partnerId,
  tenant.environment,
  figures.month,
  figures.activeAccountsOverMonths,
  figures.accountsWithActivity,
  figures.storiesCompleted,
  figures.minutesRead,
];

const INSERT = `INSERT INTO kids_fixed_months
  (partner_id, environment, month, active_accounts_over_months, accounts_with_activity, stories_completed, minutes_read)
  VALUES ($1, $2, $3, $4, $5, $6, $7)`;

@Injectable()
export class PgKidsMonthFiguresRepository extends KidsMonthFiguresRepository {
  constructor(private readonly db: Db) {
    super();
  }

  fixed(tenant: Tenant, months: readonly string[]): Promise<KidsMonthFigures[]> {
    // The primary, never the standby: a month another replica fixed a moment ago must be seen.
    return this.db.query<KidsMonthFigures>(
      `SELECT to_char(month, 'YYYY-MM-DD') AS month, active_accounts_over_months AS "activeAccountsOverMonths",
              accounts_with_activity AS "accountsWithActivity", stories_completed AS "storiesCompleted",
              minutes_read::float8 AS "minutesRead", fixed_at AS "fixedAt"
         FROM kids_fixed_months WHERE partner_id = $1 AND environment = $2 AND month = ANY ($3::date[]) ORDER BY month`,
      [tenant.partnerId, tenant.environment, months],
    );
  }

  async fixUnlessFixed(tenant: Tenant, figures: Omit<KidsMonthFigures, 'fixedAt'>): Promise<void> {
    await this.db.query(`${INSERT} ON CONFLICT (partner_id, environment, month) DO NOTHING`, figuresRow(tenant, figures));
  }

  async replace(tenant: Tenant, figures: Omit<KidsMonthFigures, 'fixedAt'>): Promise<void> {
    await this.db.query(
      `${INSERT} ON CONFLICT (partner_id, environment, month) DO UPDATE SET
         active_accounts_over_months = excluded.active_accounts_over_months, accounts_with_activity = excluded.accounts_with_activity,
         stories_completed = excluded.stories_completed, minutes_read = excluded.minutes_read, fixed_at = excluded.fixed_at`,
      figuresRow(tenant, figures),
    );
  }

  async holdAgainstImports(tenant: Tenant, mode: 'fixing' | 'importing'): Promise<void> {
    const key = [`kids_fixed_months:${tenant.partnerId}:${tenant.environment}`];
    if (mode === 'importing') await this.db.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', key);
    else await this.db.query('SELECT pg_advisory_xact_lock_shared(hashtextextended($1, 0))', key);
  }
}
