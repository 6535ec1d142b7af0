import { Injectable } from '@nestjs/common';
import { UnitOfWork } from '../../../shared/persistence/unit-of-work.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import type { ReportingWindow } from '../../analytics/index.js';
import { EntitlementsService } from '../../entitlements/index.js';
import { KidsActivityRepository } from '../domain/kids-activity.repository.js';
import { MIN_SAMPLE_THRESHOLD, type KidsEngagementMeasures, type KidsMonthFigures } from '../domain/kids-engagement-summary.js';
import { KidsMonthFiguresRepository } from '../domain/kids-month-figures.repository.js';
import { MAX_WINDOW_MONTHS, monthsBefore, oneMonthWindow } from './kids-month-window.js';

/** No figure exists before the first calendar date PostgreSQL stores (reporting-window.ts). */
const FIRST_MONTH = '0001-01-01';

/**
 * The children's figures month by month (DECISIONS 15, ADR 0135): computed from the
 * sessions and the entitlement history the first time an answer covers a month, then fixed,
 * so that what is written or imported since changes no answer. Only a restatement
 * (`kids:import --restate`, ADR 0136) computes a fixed month again.
 */
@Injectable()
export class KidsMonthFiguresService {
  constructor(
    private readonly entitlements: EntitlementsService,
    private readonly activities: KidsActivityRepository,
    private readonly fixedMonths: KidsMonthFiguresRepository,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  /**
   * The fixed figures of `months` (YYYY-MM-01, oldest first), fixing those not fixed yet.
   * Replicas answering a month's first request at once each compute it; the first insert
   * wins and every one answers with what was stored.
   */
  async figuresOf(tenant: Tenant, months: readonly string[]): Promise<KidsMonthFigures[]> {
    const fixed = await this.fixedMonths.fixed(tenant, months);
    if (fixed.length === months.length) return fixed;
    await this.unitOfWork.run(async () => {
      await this.fixedMonths.holdAgainstImports(tenant, 'fixing');
      const known = new Set((await this.fixedMonths.fixed(tenant, months)).map((figures) => figures.month));
      for (const month of months) if (!known.has(month)) await this.fixedMonths.fixUnlessFixed(tenant, await this.computed(tenant, month));
    });
    return this.fixedMonths.fixed(tenant, months);
  }

  /**
   * Computes again those of `months` that are fixed, from the data as the caller's unit of
   * work sees it, which must hold the import's side of `holdAgainstImports`. Answers them.
   */
  async restate(tenant: Tenant, months: readonly string[]): Promise<string[]> {
    const fixed = (await this.fixedMonths.fixed(tenant, months)).map((figures) => figures.month);
    for (const month of fixed) await this.fixedMonths.replace(tenant, await this.computed(tenant, month));
    return fixed;
  }

  /** For an import's unit of work, first: waits for the fixings under way and keeps new ones waiting until it ends. */
  holdForImport(tenant: Tenant): Promise<void> {
    return this.fixedMonths.holdAgainstImports(tenant, 'importing');
  }

  /** The fixed months among `months`. */
  async fixedAmong(tenant: Tenant, months: readonly string[]): Promise<string[]> {
    return (await this.fixedMonths.fixed(tenant, months)).map((figures) => figures.month);
  }

  /**
   * The partner's figures of any window. The partner writes the entitlements, so only the
   * activity of accounts entitled in the window counts; the accounts stay in the database.
   */
  async measures(tenant: Tenant, window: ReportingWindow): Promise<KidsEngagementMeasures> {
    const { from, until } = window;
    // One after another: inside a unit of work (fixing a month) they share its connection.
    const activeAccounts = await this.entitlements.countActiveDuring(tenant, 'kidsapp', from, until);
    const totals = await this.activities.totals(tenant, window, MIN_SAMPLE_THRESHOLD);
    return { activeAccounts, ...totals };
  }

  /** One month's figures from the data, with the distinct active accounts of the spans of months ending with it. */
  private async computed(tenant: Tenant, month: string): Promise<Omit<KidsMonthFigures, 'fixedAt'>> {
    const window = oneMonthWindow(month);
    const measures = await this.measures(tenant, window);
    const activeAccountsOverMonths = [measures.activeAccounts];
    for (let back = 1; back < MAX_WINDOW_MONTHS; back++) {
      const first = monthsBefore(month, back) < FIRST_MONTH ? FIRST_MONTH : monthsBefore(month, back);
      activeAccountsOverMonths.push(await this.entitlements.countActiveDuring(tenant, 'kidsapp', new Date(`${first}T00:00:00Z`), window.until));
    }
    return { month, ...measures, activeAccountsOverMonths };
  }
}
