import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/db.js';
import {
  IdempotencyKeyRepository,
  type ClaimOutcome,
  type HeldKey,
  type KeyClaim,
  type SealedAnswer,
  type StoredAnswer,
} from '../domain/idempotency-key.repository.js';

interface ClaimRow {
  claimed: boolean;
  same_request: boolean;
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
  response_sealed: boolean | null;
}

/**
 * The claim, in one statement: insert the key, or take it over when its holder's lease ran
 * out (same request only), else read what holds it. INSERT … ON CONFLICT decides between
 * concurrent claims on every replica: one inserts, the others wait for its commit and see
 * the row. A row committed after this statement's snapshot is locked by ON CONFLICT but not
 * seen by the plain read: that answers as "in use", and the retry a second later sees it.
 */
const CLAIM = `
WITH claimed AS (
  INSERT INTO idempotency_keys AS k (partner_id, environment, key, fingerprint, claim_token, locked_until, expires_at)
  VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6), now() + make_interval(secs => $7))
  ON CONFLICT (partner_id, environment, key) DO UPDATE
    SET claim_token = EXCLUDED.claim_token, locked_until = EXCLUDED.locked_until, expires_at = EXCLUDED.expires_at
    WHERE k.response_status IS NULL AND k.locked_until < now() AND k.fingerprint = EXCLUDED.fingerprint
  RETURNING true AS claimed, true AS same_request, NULL::smallint AS response_status, NULL::jsonb AS response_headers, NULL::text AS response_body,
            NULL::boolean AS response_sealed
)
SELECT * FROM claimed
UNION ALL
SELECT false, fingerprint = $4, response_status, response_headers, response_body, response_sealed
  FROM idempotency_keys
 WHERE partner_id = $1 AND environment = $2 AND key = $3 AND NOT EXISTS (SELECT FROM claimed)`;

@Injectable()
export class PgIdempotencyKeyRepository extends IdempotencyKeyRepository {
  constructor(private readonly db: Db) {
    super();
  }

  async claim({ tenant, key, fingerprint, claimToken, leaseSeconds, keepSeconds }: KeyClaim): Promise<ClaimOutcome> {
    const [row] = await this.db.prepared<ClaimRow>('idempotency.claim', CLAIM, [
      tenant.partnerId,
      tenant.environment,
      key,
      fingerprint,
      claimToken,
      leaseSeconds,
      keepSeconds,
    ]);
    if (!row) return { kind: 'in_use' };
    if (row.claimed) return { kind: 'claimed', held: { tenant, key, claimToken } };
    if (!row.same_request) return { kind: 'reused' };
    if (row.response_status === null) return { kind: 'in_use' };
    return {
      kind: 'answered',
      answer: { status: row.response_status, headers: row.response_headers ?? {}, body: row.response_body ?? '' },
      sealed: row.response_sealed === true,
    };
  }

  async complete({ tenant, key, claimToken }: HeldKey, answer: StoredAnswer, sealed: boolean, keepSeconds: number): Promise<boolean> {
    const rows = await this.db.prepared(
      'idempotency.complete',
      `UPDATE idempotency_keys
          SET response_status = $5, response_headers = $6, response_body = $7, response_sealed = $8, expires_at = now() + make_interval(secs => $9)
        WHERE partner_id = $1 AND environment = $2 AND key = $3 AND claim_token = $4
       RETURNING 1`,
      [tenant.partnerId, tenant.environment, key, claimToken, answer.status, answer.headers, answer.body, sealed, keepSeconds],
    );
    return rows.length === 1;
  }

  async release({ tenant, key, claimToken }: HeldKey): Promise<void> {
    await this.db.query(
      `DELETE FROM idempotency_keys WHERE partner_id = $1 AND environment = $2 AND key = $3 AND claim_token = $4 AND response_status IS NULL`,
      [tenant.partnerId, tenant.environment, key, claimToken],
    );
  }

  async purgeExpired(limit: number): Promise<number> {
    // SKIP LOCKED: replicas purging at once share the rows instead of waiting on each other;
    // a key being claimed right now is not one to delete anyway.
    const rows = await this.db.query(
      `DELETE FROM idempotency_keys WHERE ctid IN (
         SELECT ctid FROM idempotency_keys WHERE expires_at < now() LIMIT $1 FOR UPDATE SKIP LOCKED
       ) RETURNING 1`,
      [limit],
    );
    return rows.length;
  }

  async sealedAnswers(): Promise<SealedAnswer[]> {
    return this.db.query<SealedAnswer>(
      `SELECT partner_id AS "partnerId", environment, key, response_body AS "sealedBody"
         FROM idempotency_keys WHERE response_sealed ORDER BY partner_id, environment, key`,
    );
  }

  async resealAll(reseal: (sealed: string) => string): Promise<number> {
    const rows = await this.db.query<{ partner_id: string; environment: string; key: string; response_body: string }>(
      `SELECT partner_id, environment, key, response_body FROM idempotency_keys WHERE response_sealed FOR UPDATE`,
    );
    for (const row of rows) {
      await this.db.query(`UPDATE idempotency_keys SET response_body = $4 WHERE partner_id = $1 AND environment = $2 AND key = $3`, [
        row.partner_id,
        row.environment,
        row.key,
        reseal(row.response_body),
      ]);
    }
    return rows.length;
  }
}
