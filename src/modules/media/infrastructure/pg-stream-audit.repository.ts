import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/db.js';
import { StreamAuditRepository, type StreamIssued } from '../domain/stream-audit.repository.js';

@Injectable()
export class PgStreamAuditRepository extends StreamAuditRepository {
  constructor(private readonly db: Db) {
    super();
  }

  async appendAll(entries: readonly StreamIssued[]): Promise<void> {
    // One statement for a whole batch: the columns travel as arrays.
    await this.db.prepared(
      'media.append-stream-issues',
      `INSERT INTO stream_url_issues (partner_id, environment, client_id, subscriber_id, novel_id, chapter_number, issued_at, expires_at)
       SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::timestamptz[], $8::timestamptz[])`,
      [
        entries.map((e) => e.partnerId),
        entries.map((e) => e.environment),
        entries.map((e) => e.clientId),
        entries.map((e) => e.subscriberId),
        entries.map((e) => e.novelId),
        entries.map((e) => e.chapterNumber),
        entries.map((e) => e.issuedAt),
        entries.map((e) => e.expiresAt),
      ],
    );
  }
}
