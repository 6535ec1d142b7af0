import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/db.js';
import { StreamAuditRepository, type StreamIssued } from '../domain/stream-audit.repository.js';

@Injectable()
export class PgStreamAuditRepository extends StreamAuditRepository {
  constructor(private readonly db: Db) {
    super();
  }

  async append(entry: StreamIssued): Promise<void> {
    // Plain SQL: every stream URL writes one, a hot path; the repository's insert builder
    // cost more CPU than PostgreSQL spent on the row.
    await this.db.query(
      `INSERT INTO stream_url_issues (partner_id, environment, client_id, subscriber_id, novel_id, chapter_number, issued_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [entry.partnerId, entry.environment, entry.clientId, entry.subscriberId, entry.novelId, entry.chapterNumber, entry.issuedAt, entry.expiresAt],
    );
  }
}
