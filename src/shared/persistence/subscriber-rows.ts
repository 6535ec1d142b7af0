import { Injectable, type FactoryProvider, type Provider, type Type } from '@nestjs/common';
import { SubscriberDataRegistry, type ErasedCounts, type ExportedSections, type SubscriberDataHolder } from '../tenancy/subscriber-data.js';
import type { Tenant } from '../tenancy/tenant.js';
import { Db } from './db.js';

/** Rows are a subscriber's when these columns name it: every subscriber-keyed table has them, first in its key. */
export const SUBSCRIBER_KEY = 'partner_id = $1 AND environment = $2 AND subscriber_id = $3';

/**
 * A module's rows about subscribers in tables keyed `(partner_id, environment,
 * subscriber_id, …)`: the clean slate deletes them all; the module adds its export and
 * erasure. `tables` are constants of the owning module, never input. Injectable so that its
 * subclasses inherit the constructor's parameter types.
 */
@Injectable()
export abstract class SubscriberRows implements SubscriberDataHolder {
  abstract readonly name: string;
  protected abstract readonly tables: readonly string[];

  constructor(protected readonly db: Db) {}

  get columns(): readonly string[] {
    return this.tables.map((table) => `${table}.subscriber_id`);
  }

  async holdsAny(tenant: Tenant, subscriberId: string): Promise<boolean> {
    const exists = this.tables.map((table) => `EXISTS (SELECT FROM ${table} WHERE ${SUBSCRIBER_KEY})`).join(' OR ');
    const [{ held }] = await this.db.query<{ held: boolean }>(`SELECT ${exists} AS held`, this.key(tenant, subscriberId));
    return held;
  }

  async clear(tenant: Tenant, subscriberId: string): Promise<void> {
    for (const table of this.tables) await this.db.query(`DELETE FROM ${table} WHERE ${SUBSCRIBER_KEY}`, this.key(tenant, subscriberId));
  }

  abstract export(tenant: Tenant, subscriberId: string): Promise<ExportedSections>;
  abstract erase(tenant: Tenant, subscriberId: string, standIn: string): Promise<Partial<ErasedCounts>>;

  protected key(tenant: Tenant, subscriberId: string): unknown[] {
    return [tenant.partnerId, tenant.environment, subscriberId];
  }

  /** The rows of `select` (whose parameters are the key, $1 to $3), as JSON values. */
  protected rows(select: string, tenant: Tenant, subscriberId: string): Promise<Record<string, unknown>[]> {
    return this.db.query(select, this.key(tenant, subscriberId));
  }

  /** Deletes the subscriber's rows of `table`; how many. */
  protected async deleteRows(table: string, tenant: Tenant, subscriberId: string): Promise<number> {
    return this.counted(`DELETE FROM ${table} WHERE ${SUBSCRIBER_KEY} RETURNING 1`, this.key(tenant, subscriberId));
  }

  /** Gives the subscriber's rows of `table` the stand-in instead of its id; how many. */
  protected async replaceWithStandIn(table: string, tenant: Tenant, subscriberId: string, standIn: string): Promise<number> {
    return this.counted(`UPDATE ${table} SET subscriber_id = $4 WHERE ${SUBSCRIBER_KEY} RETURNING 1`, [...this.key(tenant, subscriberId), standIn]);
  }

  /** How many rows a statement `… RETURNING …` touched. */
  protected async counted(statement: string, parameters: unknown[]): Promise<number> {
    const [{ count }] = await this.db.query<{ count: number }>(`WITH touched AS (${statement}) SELECT count(*)::int AS count FROM touched`, parameters);
    return count;
  }
}

/**
 * The providers that register a module's holder of subscriber data with the
 * SubscriberDataRegistry at start: listed once, in the module that owns the rows.
 */
export function subscriberData(holder: Type<SubscriberDataHolder>): Provider[] {
  return [
    holder,
    {
      provide: `subscriber-data:${holder.name}`,
      inject: [SubscriberDataRegistry, holder],
      useFactory: (registry: SubscriberDataRegistry, instance: SubscriberDataHolder) => registry.register(instance),
    },
  ];
}

/**
 * A provider that declares a column holding subscriber ids that no holder exports, with the
 * reason: the completeness test accepts it, and its reason is reviewed with the module.
 */
export function exemptSubscriberColumn(column: string, reason: string): FactoryProvider {
  return {
    provide: `subscriber-data-exempt:${column}`,
    inject: [SubscriberDataRegistry],
    useFactory: (registry: SubscriberDataRegistry) => registry.exempt(column, reason),
  };
}
