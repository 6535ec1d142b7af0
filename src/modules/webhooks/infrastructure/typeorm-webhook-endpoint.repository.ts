import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/db.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import {
  WebhookEndpointRepository,
  type EndpointSecretRotation,
  type NewWebhookEndpoint,
  type SealedEndpointSecret,
  type RotatedSecret,
  type WebhookEndpoint,
} from '../domain/webhook-endpoint.repository.js';
import type { WebhookEventType } from '../domain/webhook-event.js';
import { WebhookEndpointEntity, WebhookEndpointSecretEntity } from './webhook.entities.js';

@Injectable()
export class TypeOrmWebhookEndpointRepository extends WebhookEndpointRepository {
  constructor(private readonly db: Db) {
    super();
  }

  async createWithin(limit: number, tenant: Tenant, endpoint: NewWebhookEndpoint): Promise<WebhookEndpoint | null> {
    // Held until commit: the count, taken after the lock, sees every endpoint created before.
    await this.db.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`webhook_endpoints:${tenant.partnerId}:${tenant.environment}`]);
    const [{ n }] = await this.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_endpoints WHERE partner_id = $1 AND environment = $2`, [
      tenant.partnerId,
      tenant.environment,
    ]);
    if (n >= limit) return null;
    const row = await this.endpoints().save({
      partnerId: tenant.partnerId,
      environment: tenant.environment,
      url: endpoint.url,
      eventTypes: endpoint.eventTypes,
    });
    await this.db.manager.getRepository(WebhookEndpointSecretEntity).insert({ endpointId: row.id, sealedSecret: endpoint.sealedSecret });
    return toEndpoint(row);
  }

  async list(tenant: Tenant): Promise<WebhookEndpoint[]> {
    const rows = await this.endpoints().find({
      where: { partnerId: tenant.partnerId, environment: tenant.environment },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
    return rows.map(toEndpoint);
  }

  async find(tenant: Tenant, id: string): Promise<WebhookEndpoint | null> {
    const row = await this.endpoints().findOneBy({ id, partnerId: tenant.partnerId, environment: tenant.environment });
    return row ? toEndpoint(row) : null;
  }

  async delete(tenant: Tenant, id: string): Promise<boolean> {
    const result = await this.endpoints().delete({ id, partnerId: tenant.partnerId, environment: tenant.environment });
    return (result.affected ?? 0) > 0;
  }

  async allSealedSecrets(): Promise<(SealedEndpointSecret & { sealedSecret: string })[]> {
    return this.db.query(
      `SELECT s.endpoint_id AS "endpointId", e.partner_id AS "partnerId", e.environment, s.sealed_secret AS "sealedSecret"
         FROM webhook_endpoint_secrets s JOIN webhook_endpoints e ON e.id = s.endpoint_id
        ORDER BY e.partner_id, e.environment, s.endpoint_id, s.created_at`,
    );
  }

  async resealAllSecrets(reseal: (sealed: string) => string): Promise<number> {
    const rows = await this.db.query<{ id: string; sealed_secret: string }>(`SELECT id, sealed_secret FROM webhook_endpoint_secrets FOR UPDATE`);
    for (const row of rows) await this.db.query(`UPDATE webhook_endpoint_secrets SET sealed_secret = $2 WHERE id = $1`, [row.id, reseal(row.sealed_secret)]);
    return rows.length;
  }

  async rotateSecret(tenant: Tenant, id: string, sealedSecret: string, overlapSeconds: number): Promise<RotatedSecret | null> {
    // The lock serialises rotations of one endpoint, so exactly one secret is current.
    const row = await this.endpoints().findOne({
      where: { id, partnerId: tenant.partnerId, environment: tenant.environment },
      lock: { mode: 'pessimistic_write' },
    });
    if (!row) return null;
    return { endpoint: toEndpoint(row), previousSecretExpiresAt: await this.replaceSecret(id, sealedSecret, overlapSeconds) };
  }

  async rotateAllSecrets(newSealedSecret: () => string, overlapSeconds: number): Promise<EndpointSecretRotation[]> {
    const rows = await this.db.query<{ id: string; partner_id: string; environment: Tenant['environment'] }>(
      `SELECT id, partner_id, environment FROM webhook_endpoints ORDER BY partner_id, environment, id FOR UPDATE`,
    );
    const rotations: EndpointSecretRotation[] = [];
    for (const row of rows) {
      const previousSecretExpiresAt = await this.replaceSecret(row.id, newSealedSecret(), overlapSeconds);
      rotations.push({ endpointId: row.id, partnerId: row.partner_id, environment: row.environment, previousSecretExpiresAt });
    }
    return rotations;
  }

  /** On a locked endpoint: ends its current secret `overlapSeconds` from now (or keeps an earlier end), drops ended ones, adds `sealedSecret`. */
  private async replaceSecret(id: string, sealedSecret: string, overlapSeconds: number): Promise<Date> {
    // In a CTE because TypeORM answers a top-level UPDATE with a row count, not the rows.
    const [retired] = await this.db.query<{ expires_at: Date }>(
      `WITH retired AS (
         UPDATE webhook_endpoint_secrets SET expires_at = now() + make_interval(secs => $2)
         WHERE endpoint_id = $1 AND expires_at IS NULL RETURNING expires_at
       )
       SELECT expires_at FROM retired`,
      [id, overlapSeconds],
    );
    await this.db.query(`DELETE FROM webhook_endpoint_secrets WHERE endpoint_id = $1 AND expires_at <= now()`, [id]);
    await this.db.manager.getRepository(WebhookEndpointSecretEntity).insert({ endpointId: id, sealedSecret });
    return retired.expires_at;
  }

  async isSubscribed(tenant: Tenant, eventType: WebhookEventType, before: Date): Promise<boolean> {
    const rows = await this.db.query(
      `SELECT 1 FROM webhook_endpoints WHERE partner_id = $1 AND environment = $2 AND $3 = ANY (event_types) AND created_at < $4 LIMIT 1`,
      [tenant.partnerId, tenant.environment, eventType, before],
    );
    return rows.length > 0;
  }

  private endpoints() {
    return this.db.manager.getRepository(WebhookEndpointEntity);
  }
}

function toEndpoint(row: WebhookEndpointEntity): WebhookEndpoint {
  return { id: row.id, url: row.url, eventTypes: row.eventTypes as WebhookEventType[], createdAt: row.createdAt };
}
