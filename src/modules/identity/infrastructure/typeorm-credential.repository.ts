import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config.js';
import { Db } from '../../../shared/persistence/db.js';
import { NotifiedCache } from '../../../shared/persistence/notified-cache.js';
import { PgNotifications } from '../../../shared/persistence/pg-notifications.js';
import { CredentialRepository, type CredentialRecord, type CredentialSummary, type PartnerSummary } from '../domain/credential.repository.js';
import { CredentialEntity, PartnerEntity } from './identity.entities.js';

/** Carries the client id of a credential whose status changed, sent in the change's transaction. */
const CREDENTIAL_CHANNEL = 'credential_changed';

@Injectable()
export class TypeOrmCredentialRepository extends CredentialRepository {
  /**
   * Whether each credential may still be used, consulted on every authenticated request:
   * kept in memory, dropped on every replica when a revocation commits (ADR 0113), and read
   * again after CREDENTIAL_CACHE_SECONDS in case it was changed without a notification.
   */
  private readonly statuses: NotifiedCache<boolean>;

  constructor(
    private readonly db: Db,
    notifications: PgNotifications,
    @Inject(AppConfig) config: AppConfig,
  ) {
    super();
    this.statuses = new NotifiedCache(
      notifications,
      CREDENTIAL_CHANNEL,
      async (clientId) => {
        const credential = await this.findByClientId(clientId);
        return !!credential && !credential.revokedAt;
      },
      config.credentialCacheSeconds * 1000,
    );
  }

  async createPartner(name: string): Promise<string> {
    const saved = await this.db.manager.getRepository(PartnerEntity).save({ name });
    return saved.id;
  }

  async partnerExists(partnerId: string): Promise<boolean> {
    return this.db.manager.getRepository(PartnerEntity).existsBy({ id: partnerId });
  }

  async insert(credential: Omit<CredentialRecord, 'revokedAt'>, secretFingerprint: string): Promise<void> {
    await this.db.manager.getRepository(CredentialEntity).insert({ ...credential, secretFingerprint, revokedAt: null });
  }

  async upgradeSecretHash(clientId: string, secretHash: Buffer, secretFingerprint: string): Promise<void> {
    await this.db.query(`UPDATE credentials SET secret_hash = $2, secret_fingerprint = $3 WHERE client_id = $1`, [clientId, secretHash, secretFingerprint]);
  }

  async markUnmarkedSecretHashes(fingerprint: string): Promise<void> {
    await this.db.query(`UPDATE credentials SET secret_fingerprint = $1 WHERE secret_fingerprint IS NULL`, [fingerprint]);
  }

  async countHashedWithOtherThan(fingerprint: string): Promise<number> {
    const [row] = await this.db.query<{ count: string }>(
      `SELECT count(*) AS count FROM credentials WHERE revoked_at IS NULL AND secret_fingerprint IS DISTINCT FROM $1`,
      [fingerprint],
    );
    return Number(row.count);
  }

  async list({ partnerId, hashedWithOtherThan }: { partnerId?: string; hashedWithOtherThan?: string }): Promise<CredentialSummary[]> {
    return this.db.query<CredentialSummary>(
      `SELECT client_id AS "clientId", partner_id AS "partnerId", environment, scopes, created_at AS "createdAt",
              revoked_at AS "revokedAt", last_used_at AS "lastUsedAt"
         FROM credentials
        WHERE ($1::uuid IS NULL OR partner_id = $1)
          AND ($2::text IS NULL OR (revoked_at IS NULL AND secret_fingerprint IS DISTINCT FROM $2))
        ORDER BY created_at, client_id`,
      [partnerId ?? null, hashedWithOtherThan ?? null],
    );
  }

  async listPartners(): Promise<PartnerSummary[]> {
    return this.db.query<PartnerSummary>(
      `SELECT p.id, p.name, p.created_at AS "createdAt",
              count(c.client_id) FILTER (WHERE c.revoked_at IS NULL)::int AS "activeCredentials",
              count(c.client_id) FILTER (WHERE c.revoked_at IS NOT NULL)::int AS "revokedCredentials"
         FROM partners p LEFT JOIN credentials c ON c.partner_id = p.id
        GROUP BY p.id ORDER BY p.created_at, p.id`,
    );
  }

  async recordUse(clientId: string): Promise<void> {
    await this.db.query(
      `UPDATE credentials SET last_used_at = now()
        WHERE client_id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
      [clientId],
    );
  }

  async findByClientId(clientId: string): Promise<CredentialRecord | null> {
    // Plain SQL: the token endpoint reads it on every request, and the query builder cost more than the lookup.
    const [row] = await this.db.prepared<CredentialRecord>(
      'identity.credential-by-client-id',
      `SELECT client_id AS "clientId", partner_id AS "partnerId", secret_hash AS "secretHash", scopes, environment, revoked_at AS "revokedAt"
         FROM credentials WHERE client_id = $1`,
      [clientId],
    );
    return row ?? null;
  }

  isActive(clientId: string): Promise<boolean> {
    return this.statuses.get(clientId);
  }

  async revoke(clientId: string, at: Date): Promise<boolean> {
    // The notification leaves at commit, so no replica drops the status before the row changed.
    const rows = await this.db.query<{ client_id: string }>(
      `WITH revoked AS (UPDATE credentials SET revoked_at = COALESCE(revoked_at, $2) WHERE client_id = $1 RETURNING client_id)
       SELECT client_id, pg_notify($3, client_id) FROM revoked`,
      [clientId, at, CREDENTIAL_CHANNEL],
    );
    // This process refuses at once, without waiting for its own notification to come back.
    this.statuses.invalidate(clientId);
    return rows.length > 0;
  }

  async revokeAllOf(partnerId: string, at: Date): Promise<string[]> {
    const rows = await this.db.query<{ client_id: string }>(
      `WITH revoked AS (UPDATE credentials SET revoked_at = COALESCE(revoked_at, $2) WHERE partner_id = $1 RETURNING client_id)
       SELECT client_id, pg_notify($3, client_id) FROM revoked`,
      [partnerId, at, CREDENTIAL_CHANNEL],
    );
    for (const { client_id } of rows) this.statuses.invalidate(client_id);
    return rows.map((row) => row.client_id);
  }
}
