import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/db.js';
import { TypeOrmUnitOfWork } from '../../../shared/persistence/typeorm-unit-of-work.js';
import { SigningKeyRepository, type StoredSigningKey } from '../domain/signing-key.repository.js';
import type { TokenIssuer } from '../domain/token-issuers.js';
import { SigningKeyEntity } from './identity.entities.js';

@Injectable()
export class TypeOrmSigningKeyRepository extends SigningKeyRepository {
  constructor(
    private readonly db: Db,
    private readonly unitOfWork: TypeOrmUnitOfWork,
  ) {
    super();
  }

  async list(issuer: TokenIssuer): Promise<StoredSigningKey[]> {
    const rows = await this.db.manager.getRepository(SigningKeyEntity).find({ where: { issuer }, order: { signsFrom: 'ASC' } });
    return rows.map((row) => ({
      kid: row.kid,
      issuer: row.issuer as TokenIssuer,
      publicJwk: row.publicJwk,
      sealedPrivateKey: row.sealedPrivateKey,
      signsFrom: row.signsFrom,
    }));
  }

  async insert(key: StoredSigningKey): Promise<void> {
    await this.db.query(`INSERT INTO signing_keys (kid, issuer, public_jwk, sealed_private_key, signs_from) VALUES ($1, $2, $3, $4, $5)`, [
      key.kid,
      key.issuer,
      JSON.stringify(key.publicJwk),
      key.sealedPrivateKey,
      key.signsFrom,
    ]);
  }

  async resealAll(reseal: (sealed: string) => string): Promise<number> {
    const rows = await this.db.query<{ kid: string; sealed_private_key: string }>(`SELECT kid, sealed_private_key FROM signing_keys FOR UPDATE`);
    for (const row of rows) await this.db.query(`UPDATE signing_keys SET sealed_private_key = $2 WHERE kid = $1`, [row.kid, reseal(row.sealed_private_key)]);
    return rows.length;
  }

  async anySealedKey(): Promise<string | undefined> {
    const [row] = await this.db.query<{ sealed_private_key: string }>(`SELECT sealed_private_key FROM signing_keys LIMIT 1`);
    return row?.sealed_private_key;
  }

  withIssuerLock<T>(issuer: TokenIssuer, work: () => Promise<T>): Promise<T> {
    return this.unitOfWork.run(async () => {
      await this.db.query(`SELECT pg_advisory_xact_lock(hashtext('signing_keys:' || $1))`, [issuer]);
      return work();
    });
  }
}
