import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/db.js';
import type { ErasedCounts, ExportedSections, SubscriberDataHolder } from '../../../shared/tenancy/subscriber-data.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';

/**
 * The stored answers of keyed writes name the subscribers they were about: in their body
 * (`"subscriber_id": "…"`) and in a `Location` header (`…/subscribers/{id}/…`). They are
 * copies of answers already given, whose data the owning modules export, so they add nothing
 * to an export; but an erasure or a test clock's clean slate deletes them, so no replay can
 * hand the id out again. A key whose answer matched is simply gone: its retry is processed anew.
 * Sealed answers (those carrying a secret: webhook endpoints') name no subscriber.
 */
@Injectable()
export class IdempotencySubscriberData implements SubscriberDataHolder {
  readonly name = 'stored answers of keyed writes';
  // The walk of the completeness test finds the JSON column; the body (text) is erased by the same statement.
  readonly columns = ['idempotency_keys.response_headers'];

  constructor(private readonly db: Db) {}

  async export(): Promise<ExportedSections> {
    return {};
  }

  async erase(tenant: Tenant, subscriberId: string): Promise<Partial<ErasedCounts>> {
    await this.clear(tenant, subscriberId);
    return {};
  }

  async clear(tenant: Tenant, subscriberId: string): Promise<void> {
    await this.db.query(
      `DELETE FROM idempotency_keys
        WHERE partner_id = $1 AND environment = $2
          AND (strpos(response_body, '"' || $3 || '"') > 0 OR strpos(response_headers::text, '/' || $3 || '/') > 0
               OR strpos(response_headers::text, '/' || $3 || '"') > 0)`,
      [tenant.partnerId, tenant.environment, subscriberId],
    );
  }
}
