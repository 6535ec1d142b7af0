import type { FactoryProvider } from '@nestjs/common';
import { SubscriberDataRegistry } from '../tenancy/subscriber-data.js';
import type { Tenant } from '../tenancy/tenant.js';
import { Db } from './db.js';

/**
 * Rows are a subscriber's when these columns name it: every subscriber-keyed table has them,
 * first in its key (the subscriber's column is `subscriber_id` unless the table names it otherwise).
 */
const subscriberKey = (column: string) => `partner_id = $1 AND environment = $2 AND ${column} = $3`;

/**
 * A module's provider that registers its subscriber-keyed tables with the
 * SubscriberDataRegistry at start: listed once, in the module that owns them.
 * `tables` and `subscriberColumn` are constants of the owning module, never input.
 */
export function subscriberRows(name: string, tables: readonly string[], subscriberColumn = 'subscriber_id'): FactoryProvider {
  const SUBSCRIBER_KEY = subscriberKey(subscriberColumn);
  return {
    provide: `subscriber-rows:${name}`,
    inject: [SubscriberDataRegistry, Db],
    useFactory: (registry: SubscriberDataRegistry, db: Db) => {
      const key = (tenant: Tenant, subscriberId: string) => [tenant.partnerId, tenant.environment, subscriberId];
      const holder = {
        name,
        holdsAny: async (tenant: Tenant, subscriberId: string) => {
          const exists = tables.map((table) => `EXISTS (SELECT FROM ${table} WHERE ${SUBSCRIBER_KEY})`).join(' OR ');
          const [{ held }] = await db.query<{ held: boolean }>(`SELECT ${exists} AS held`, key(tenant, subscriberId));
          return held;
        },
        erase: async (tenant: Tenant, subscriberId: string) => {
          for (const table of tables) await db.query(`DELETE FROM ${table} WHERE ${SUBSCRIBER_KEY}`, key(tenant, subscriberId));
        },
      };
      registry.register(holder);
      return holder;
    },
  };
}
