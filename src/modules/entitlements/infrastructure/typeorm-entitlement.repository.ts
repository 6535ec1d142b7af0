import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/db.js';
import { ReportingDb } from '../../../shared/persistence/reporting-db.js';
import { NotifiedCache } from '../../../shared/persistence/notified-cache.js';
import { PgNotifications } from '../../../shared/persistence/pg-notifications.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import {
  EntitlementRepository,
  type ActiveCountHistory,
  type CurrentEntitlement,
  type Entitlement,
  type EntitlementChange,
  type EntitlementKey,
  type EntitlementState,
} from '../domain/entitlement.repository.js';
import type { InternalPlan, Product } from '../domain/plans.js';
import { daySummaryBase } from './entitlement-day-peaks.js';
import { EntitlementEntity, EntitlementHistoryEntity, PlanMappingEntity } from './entitlement.entities.js';

const DAY_MS = 86_400_000;

const keyColumns = (key: EntitlementKey) => ({
  partnerId: key.tenant.partnerId,
  environment: key.tenant.environment,
  subscriberId: key.subscriberId,
  product: key.product,
});

/** Carries the partner whose plan mappings changed, sent in the mapping's transaction. */
const PLAN_MAPPINGS_CHANNEL = 'plan_mappings_changed';

@Injectable()
export class TypeOrmEntitlementRepository extends EntitlementRepository {
  /**
   * Each partner's plan mappings, read on every entitlement write that names a plan and
   * changed only by an operator: kept in memory and dropped on every replica when a
   * mapping commits (ADR 0123).
   */
  private readonly planMappings: NotifiedCache<Map<string, InternalPlan>>;

  constructor(
    private readonly db: Db,
    /** Billing history and the children's summary tolerate seconds of lag: they may read on the standby (ADR 0122). */
    private readonly reporting: ReportingDb,
    notifications: PgNotifications,
  ) {
    super();
    this.planMappings = new NotifiedCache(notifications, PLAN_MAPPINGS_CHANNEL, (partnerId) => this.loadPlanMappings(partnerId));
  }

  async insertIfAbsent(key: EntitlementKey, state: EntitlementState, effectiveAt: Date | null): Promise<Date | null> {
    // ON CONFLICT DO NOTHING waits for a concurrent insert of the same key to commit.
    const rows = await this.db.query<{ effectiveAt: Date }>(
      `INSERT INTO entitlements (partner_id, environment, subscriber_id, product, status, partner_plan, internal_plan, effective_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, COALESCE($8, clock_timestamp())) ON CONFLICT DO NOTHING RETURNING effective_at AS "effectiveAt"`,
      [key.tenant.partnerId, key.tenant.environment, key.subscriberId, key.product, state.status, state.partnerPlan, state.internalPlan, effectiveAt],
    );
    return rows[0]?.effectiveAt ?? null;
  }

  async lockCurrent(key: EntitlementKey): Promise<CurrentEntitlement> {
    const rows = await this.db.query<CurrentEntitlement>(
      `SELECT status, partner_plan AS "partnerPlan", internal_plan AS "internalPlan", effective_at AS "effectiveAt", clock_timestamp() AS "lockedAt"
         FROM entitlements WHERE partner_id = $1 AND environment = $2 AND subscriber_id = $3 AND product = $4 FOR UPDATE`,
      [key.tenant.partnerId, key.tenant.environment, key.subscriberId, key.product],
    );
    if (!rows[0]) throw new Error('lockCurrent: the entitlement record does not exist');
    return rows[0];
  }

  async update(key: EntitlementKey, state: EntitlementState, effectiveAt: Date): Promise<void> {
    await this.db.manager.getRepository(EntitlementEntity).update(keyColumns(key), {
      status: state.status,
      partnerPlan: state.partnerPlan,
      internalPlan: state.internalPlan,
      effectiveAt,
      updatedAt: () => 'now()',
    });
  }

  async advanceEffectiveAt(key: EntitlementKey, effectiveAt: Date): Promise<void> {
    await this.db.query(
      `UPDATE entitlements SET effective_at = $5
        WHERE partner_id = $1 AND environment = $2 AND subscriber_id = $3 AND product = $4 AND effective_at < $5`,
      [key.tenant.partnerId, key.tenant.environment, key.subscriberId, key.product, effectiveAt],
    );
  }

  async appendHistory(key: EntitlementKey, change: EntitlementChange): Promise<void> {
    await this.db.manager.getRepository(EntitlementHistoryEntity).insert({
      ...keyColumns(key),
      oldStatus: change.oldStatus,
      newStatus: change.next.status,
      partnerPlan: change.next.partnerPlan,
      internalPlan: change.next.internalPlan,
      changedBy: change.changedBy,
      effectiveAt: change.effectiveAt,
      stale: change.stale,
    });
  }

  async listForSubscriber(tenant: Tenant, subscriberId: string): Promise<Entitlement[]> {
    // Plain SQL: every reading and playback request reads it, and the query builder cost more than the query.
    return this.db.query<Entitlement>(
      `SELECT product, status, partner_plan AS "partnerPlan", internal_plan AS "internalPlan", updated_at AS "updatedAt"
         FROM entitlements WHERE partner_id = $1 AND environment = $2 AND subscriber_id = $3 ORDER BY product`,
      [tenant.partnerId, tenant.environment, subscriberId],
    );
  }

  async countActive(tenant: Tenant, product: Product): Promise<number> {
    const [row] = await this.db.query<{ active: number }>(
      `SELECT coalesce(sum(count), 0)::int AS active FROM entitlement_counts
        WHERE partner_id = $1 AND environment = $2 AND product = $3 AND measure = 'active'`,
      [tenant.partnerId, tenant.environment, product],
    );
    return row.active;
  }

  async activeCountHistory(tenant: Tenant, product: Product, from: Date, until: Date, dayStarts: Date[]): Promise<ActiveCountHistory> {
    // Each applied change moves the count by +1 (to active), -1 (from active) or 0. The moves
    // before the period's first day come summed per day (entitlement_counts, ADR 0129); each
    // day of the period comes summarised (net, highest running sum, 00:00 moves) and is
    // extended by the changes after its summary (entitlement_day_peaks, ADR 0129), so a month
    // reads about one row per day and the latest changes, however many it held.
    const [row] = await this.reporting.query<{
      at_start: number;
      at_end: number;
      peak_inside: number | null;
      midnight_sum: number;
      records: number;
      created: number;
    }>(
      `WITH counts AS (
         SELECT coalesce(sum(count) FILTER (WHERE measure = 'moves' AND day < ($4::timestamptz AT TIME ZONE 'UTC')::date), 0) AS before,
                coalesce(sum(count) FILTER (WHERE measure = 'records'), 0) AS records,
                coalesce(sum(count) FILTER (WHERE measure = 'created'), 0) AS created
           FROM entitlement_counts WHERE partner_id = $1 AND environment = $2 AND product = $3
       ), days AS (
         SELECT day::date FROM generate_series(($4::timestamptz AT TIME ZONE 'UTC')::date,
                                               (($5::timestamptz - interval '1 microsecond') AT TIME ZONE 'UTC')::date, interval '1 day') AS day
       ), summaries AS (
         SELECT d.day, s.net, s.peak, s.midnight
           FROM days d,
                LATERAL (SELECT ${daySummaryBase('$5::timestamptz')} FROM entitlement_day_peaks p
                          WHERE p.partner_id = $1 AND p.environment = $2 AND p.product = $3 AND p.day = d.day) AS b,
                LATERAL entitlement_day_summary($1, $2, $3, d.day, b.net, b.peak, b.midnight, b.through, $5) AS s
       ), running AS (
         SELECT day, peak, midnight, (SELECT before FROM counts) + coalesce(sum(net) OVER (ORDER BY day ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS at_day_start
           FROM summaries
       ), totals AS (
         SELECT (SELECT before FROM counts) + coalesce(sum(net), 0) AS at_end FROM summaries
       )
       SELECT coalesce((SELECT at_day_start + midnight FROM running ORDER BY day LIMIT 1), (SELECT before FROM counts))::int AS at_start,
              (SELECT at_end FROM totals)::int AS at_end,
              (SELECT max(at_day_start + peak) FROM running)::int AS peak_inside,
              -- A day start at until itself (now, at 00:00) counts what the period holds.
              (SELECT sum(coalesce(r.at_day_start + r.midnight, (SELECT at_end FROM totals)))
                 FROM unnest($6::timestamptz[]) AS start LEFT JOIN running r ON r.day = (start AT TIME ZONE 'UTC')::date)::float8 AS midnight_sum,
              (SELECT records FROM counts)::int AS records,
              (SELECT created FROM counts)::int AS created`,
      [tenant.partnerId, tenant.environment, product, from, until, dayStarts],
    );
    return {
      activeAtStart: row.at_start,
      activeAtEnd: row.at_end,
      peakActive: Math.max(row.at_start, row.peak_inside ?? row.at_start),
      averageDailyActive: row.midnight_sum / dayStarts.length,
      historyComplete: row.created >= row.records,
    };
  }

  async countActiveDuring(tenant: Tenant, product: Product, from: Date, until: Date): Promise<number> {
    // Active at some instant of [from, until) = active at `from`, or not active then and
    // activated inside: each such subscriber has exactly one activation in (from, until)
    // whose inactive run began at or before `from` (migration 1764100800000, ADR 0133).
    if (from.getTime() % DAY_MS !== 0 || until.getTime() % DAY_MS !== 0) throw new Error('countActiveDuring counts whole UTC days');
    const { activeAtStart } = await this.activeCountHistory(tenant, product, from, until, [from]);
    const [row] = await this.reporting.query<{ activated: number }>(
      `WITH window_days AS (SELECT ($4::timestamptz AT TIME ZONE 'UTC')::date AS first, ($5::timestamptz AT TIME ZONE 'UTC')::date AS after)
       SELECT coalesce(sum(count), 0)::int AS activated FROM entitlement_activation_counts, window_days w
        WHERE partner_id = $1 AND environment = $2 AND product = $3
          AND day >= w.first AND day < w.after AND since_day <= w.first AND NOT (day = w.first AND at_midnight)`,
      [tenant.partnerId, tenant.environment, product, from, until],
    );
    return activeAtStart + row.activated;
  }

  async mappedPlan(partnerId: string, partnerPlan: string): Promise<InternalPlan | null> {
    return (await this.planMappings.get(partnerId)).get(partnerPlan) ?? null;
  }

  async mapPlan(partnerId: string, partnerPlan: string, internalPlan: InternalPlan): Promise<{ tenant: Tenant; subscriberId: string }[]> {
    await this.db.manager.getRepository(PlanMappingEntity).upsert({ partnerId, partnerPlan, internalPlan }, ['partnerId', 'partnerPlan']);
    await this.db.query(`SELECT pg_notify($1, $2)`, [PLAN_MAPPINGS_CHANNEL, partnerId]);
    // This process need not wait for its own notification; other replicas get it at commit.
    this.planMappings.invalidate(partnerId);
    const rows = await this.db.query<{ environment: Tenant['environment']; subscriber_id: string }>(
      `UPDATE entitlements SET internal_plan = $3, updated_at = now() WHERE partner_id = $1 AND partner_plan = $2
       RETURNING environment, subscriber_id`,
      [partnerId, partnerPlan, internalPlan],
    );
    return rows.map((row) => ({ tenant: { partnerId, environment: row.environment }, subscriberId: row.subscriber_id }));
  }

  private async loadPlanMappings(partnerId: string): Promise<Map<string, InternalPlan>> {
    const rows = await this.db.manager.getRepository(PlanMappingEntity).findBy({ partnerId });
    return new Map(rows.map((row) => [row.partnerPlan, row.internalPlan as InternalPlan]));
  }
}
