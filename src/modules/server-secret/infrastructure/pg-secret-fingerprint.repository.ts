import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/db.js';
import { PgNotifications } from '../../../shared/persistence/pg-notifications.js';
import { SecretFingerprintRepository } from '../domain/secret-fingerprint.repository.js';

/** Carries the new fingerprint when a rotation commits. */
const CHANNEL = 'server_secret_changed';

@Injectable()
export class PgSecretFingerprintRepository extends SecretFingerprintRepository {
  constructor(
    private readonly db: Db,
    private readonly notifications: PgNotifications,
  ) {
    super();
  }

  async read(): Promise<string | undefined> {
    const [row] = await this.db.query<{ fingerprint: string }>(`SELECT fingerprint FROM server_secret WHERE id = 1`);
    return row?.fingerprint;
  }

  async recordIfAbsent(fingerprint: string): Promise<string> {
    await this.db.query(`INSERT INTO server_secret (id, fingerprint) VALUES (1, $1) ON CONFLICT (id) DO NOTHING`, [fingerprint]);
    return (await this.read())!;
  }

  async lock(): Promise<string | undefined> {
    const [row] = await this.db.query<{ fingerprint: string }>(`SELECT fingerprint FROM server_secret WHERE id = 1 FOR UPDATE`);
    return row?.fingerprint;
  }

  async replace(fingerprint: string): Promise<void> {
    await this.db.query(`UPDATE server_secret SET fingerprint = $1, recorded_at = now() WHERE id = 1`, [fingerprint]);
    await this.db.query(`SELECT pg_notify($1, $2)`, [CHANNEL, fingerprint]);
  }

  async watch(changed: (fingerprint: string) => void): Promise<void> {
    await this.notifications.listen(CHANNEL, changed);
  }
}
