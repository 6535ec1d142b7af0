import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * One Idempotency-Key of a (partner, environment) (DECISIONS 30, ADR 0144): the fingerprint
 * of its first request, who holds it while that request runs (`claim_token` until
 * `locked_until`), then the answer to replay. The repository uses plain SQL.
 */
@Entity('idempotency_keys')
@Index('idempotency_keys_expires', ['expiresAt'])
@Check('idempotency_keys_environment_check', `environment IN ('live', 'sandbox')`)
export class IdempotencyKeyEntity {
  @PrimaryColumn('uuid', { name: 'partner_id' }) partnerId: string;
  @PrimaryColumn('text') environment: string;
  @PrimaryColumn('text') key: string;
  /** SHA-256 of the method, the path with its query and the body. */
  @Column('bytea') fingerprint: Buffer;
  @Column('uuid', { name: 'claim_token' }) claimToken: string;
  @Column('timestamptz', { name: 'locked_until' }) lockedUntil: Date;
  /** Null while the first request is processed. */
  @Column('smallint', { name: 'response_status', nullable: true }) responseStatus: number | null;
  @Column('jsonb', { name: 'response_headers', nullable: true }) responseHeaders: Record<string, string> | null;
  @Column('text', { name: 'response_body', nullable: true }) responseBody: string | null;
  /** Whether the body is sealed with the server secrets: an answer that carries a secret (ADR 0144). */
  @Column('boolean', { name: 'response_sealed', default: false }) responseSealed: boolean;
  @Column('timestamptz', { name: 'expires_at' }) expiresAt: Date;
}

export const IDEMPOTENCY_ENTITIES = [IdempotencyKeyEntity];
