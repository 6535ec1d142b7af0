import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/db.js';
import { CredentialRepository, type CredentialRecord } from '../domain/credential.repository.js';
import { CredentialEntity, PartnerEntity } from './identity.entities.js';

@Injectable()
export class TypeOrmCredentialRepository extends CredentialRepository {
  constructor(private readonly db: Db) {
    super();
  }

  async createPartner(name: string): Promise<string> {
    const saved = await this.db.manager.getRepository(PartnerEntity).save({ name });
    return saved.id;
  }

  async partnerExists(partnerId: string): Promise<boolean> {
    return this.db.manager.getRepository(PartnerEntity).existsBy({ id: partnerId });
  }

  async insert(credential: Omit<CredentialRecord, 'revokedAt'>): Promise<void> {
    await this.db.manager.getRepository(CredentialEntity).insert({ ...credential, revokedAt: null });
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

  async revoke(clientId: string, at: Date): Promise<boolean> {
    const rows = await this.db.query<{ client_id: string }>(
      `UPDATE credentials SET revoked_at = COALESCE(revoked_at, $2) WHERE client_id = $1 RETURNING client_id`,
      [clientId, at],
    );
    return rows.length > 0;
  }
}
