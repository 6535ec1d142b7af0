import type { KeyedAnswer } from '../../../shared/idempotency/keyed-answer.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';

/** An answer as it is replayed: status, the headers a client reads, the body's exact text. */
export type StoredAnswer = KeyedAnswer;

/** A key held by the request now processing: only the holder's token completes or releases it. */
export interface HeldKey {
  tenant: Tenant;
  key: string;
  claimToken: string;
}

/**
 * What claiming a key found: it is ours now (first request, or a holder that died and
 * whose lease ran out); its first request's answer (its body `sealed` with the server
 * secrets when it carries a secret); that request still running; or a first request with
 * another fingerprint.
 */
export type ClaimOutcome =
  { kind: 'claimed'; held: HeldKey } | { kind: 'answered'; answer: StoredAnswer; sealed: boolean } | { kind: 'in_use' } | { kind: 'reused' };

export interface KeyClaim {
  tenant: Tenant;
  key: string;
  fingerprint: Buffer;
  claimToken: string;
  leaseSeconds: number;
  keepSeconds: number;
}

/** A stored answer whose body is sealed, as `secret:status` and `secret:rotate` see it. */
export interface SealedAnswer {
  partnerId: string;
  environment: string;
  key: string;
  sealedBody: string;
}

/** The keys of every (partner, environment), shared by all replicas. */
export abstract class IdempotencyKeyRepository {
  /** In one statement: takes the key, or tells what holds it. */
  abstract claim(claim: KeyClaim): Promise<ClaimOutcome>;
  /**
   * Stores the answer of a held key, its body sealed when `sealed` says so (false when the
   * hold was lost: its lease ran out and another took it).
   */
  abstract complete(held: HeldKey, answer: StoredAnswer, sealed: boolean, keepSeconds: number): Promise<boolean>;
  /** Gives a held key up, unanswered: the next request with it is processed. */
  abstract release(held: HeldKey): Promise<void>;
  /** Deletes up to `limit` keys kept past their time; the number deleted. */
  abstract purgeExpired(limit: number): Promise<number>;
  /** Every stored answer whose body is sealed. */
  abstract sealedAnswers(): Promise<SealedAnswer[]>;
  /** Seals every sealed body again with `reseal` (a root secret rotation, ADR 0003), in the caller's transaction; how many. */
  abstract resealAll(reseal: (sealed: string) => string): Promise<number>;
}
