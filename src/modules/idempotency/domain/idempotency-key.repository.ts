import type { Tenant } from '../../../shared/tenancy/tenant.js';

/** An answer as it is replayed: status, the headers a client reads, the body's exact text. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A key held by the request now processing: only the holder's token completes or releases it. */
export interface HeldKey {
  tenant: Tenant;
  key: string;
  claimToken: string;
}

/**
 * What claiming a key found: it is ours now (first request, or a holder that died and
 * whose lease ran out); its first request's answer; that request still running; or a first
 * request with another fingerprint.
 */
export type ClaimOutcome = { kind: 'claimed'; held: HeldKey } | { kind: 'answered'; answer: StoredAnswer } | { kind: 'in_use' } | { kind: 'reused' };

export interface KeyClaim {
  tenant: Tenant;
  key: string;
  fingerprint: Buffer;
  claimToken: string;
  leaseSeconds: number;
  keepSeconds: number;
}

/** The keys of every (partner, environment), shared by all replicas. */
export abstract class IdempotencyKeyRepository {
  /** In one statement: takes the key, or tells what holds it. */
  abstract claim(claim: KeyClaim): Promise<ClaimOutcome>;
  /** Stores the answer of a held key (false when the hold was lost: its lease ran out and another took it). */
  abstract complete(held: HeldKey, answer: StoredAnswer, keepSeconds: number): Promise<boolean>;
  /** Gives a held key up, unanswered: the next request with it is processed. */
  abstract release(held: HeldKey): Promise<void>;
  /** Deletes up to `limit` keys kept past their time; the number deleted. */
  abstract purgeExpired(limit: number): Promise<number>;
}
