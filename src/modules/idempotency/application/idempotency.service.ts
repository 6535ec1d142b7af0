import { Injectable } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { ServerSecrets } from '../../../shared/crypto/server-secrets.js';
import { UnitOfWork } from '../../../shared/persistence/unit-of-work.js';
import type { Tenant } from '../../../shared/tenancy/tenant.js';
import { IdempotencyKeyRepository, type ClaimOutcome, type HeldKey, type StoredAnswer } from '../domain/idempotency-key.repository.js';
import { KeyedTransactionSlots } from './keyed-transaction-slots.js';

/**
 * How long a request holds its key. Longer than any request runs (30 s to arrive, statement
 * timeouts after), so only a holder that died (a crash, a lost connection) loses it: then a
 * retry after this is processed instead of answered 409 forever (ADR 0144).
 */
export const KEY_LEASE_SECONDS = 60;
/** How long a key and its answer are kept: at least the 24 hours of DECISIONS 30. */
export const KEY_KEPT_SECONDS = 24 * 3600;

/** The parts of a request whose fingerprint a key remembers. */
export interface KeyedRequest {
  method: string;
  /** The path with its query, as sent. */
  url: string;
  /** The parsed JSON body, if any. */
  body: unknown;
}

/** A stored answer sealed under another root secret than the writing one (`secret:status`). */
export interface AnswerSealedUnderOtherSecret {
  partnerId: string;
  environment: string;
  key: string;
}

/**
 * Idempotency keys (DECISIONS 30): claim one for a request, then store its answer or give
 * it up. An answer that carries a secret (a webhook endpoint's, say) is stored sealed with
 * the server secrets, as the secret itself is (ADR 0144), and unsealed to be replayed.
 */
@Injectable()
export class IdempotencyService {
  constructor(
    private readonly keys: IdempotencyKeyRepository,
    private readonly secrets: ServerSecrets,
    private readonly unitOfWork: UnitOfWork,
    private readonly slots: KeyedTransactionSlots,
  ) {}

  async claim(tenant: Tenant, key: string, request: KeyedRequest): Promise<ClaimOutcome> {
    const outcome = await this.keys.claim({
      tenant,
      key,
      fingerprint: fingerprintOf(request),
      claimToken: randomUUID(),
      leaseSeconds: KEY_LEASE_SECONDS,
      // Past the lease too: an answer stored with the work (which leaves expires_at) is kept 24 h after it.
      keepSeconds: KEY_KEPT_SECONDS + KEY_LEASE_SECONDS,
    });
    if (outcome.kind !== 'answered' || !outcome.sealed) return outcome;
    return { kind: 'answered', answer: { ...outcome.answer, body: this.secrets.unseal(outcome.answer.body) }, sealed: false };
  }

  /**
   * Stores the answer, its body sealed when `seal` (it carries a secret). False when the
   * key was lost meanwhile (the lease ran out and another request took it).
   */
  complete(held: HeldKey, answer: StoredAnswer, { seal }: { seal: boolean }): Promise<boolean> {
    return this.keys.complete(held, seal ? { ...answer, body: this.secrets.seal(answer.body) } : answer, seal, KEY_KEPT_SECONDS);
  }

  /**
   * Runs a keyed request's work and the storing of its answer in one transaction (ADR 0158):
   * both commit or neither does, so no crash between them leaves work done whose retry
   * would do it again. In one of the partner's slots (KeyedTransactionSlots).
   */
  inOneTransaction<T>(held: HeldKey, work: () => Promise<T>): Promise<T> {
    return this.slots.run(held.tenant.partnerId, () => this.unitOfWork.run(work));
  }

  release(held: HeldKey): Promise<void> {
    return this.keys.release(held);
  }

  /** The stored answers the writing root secret does not open: sealed under another (`secret:status`). */
  async sealedUnderOtherSecret(): Promise<AnswerSealedUnderOtherSecret[]> {
    const answers = await this.keys.sealedAnswers();
    return answers
      .filter(({ sealedBody }) => !this.secrets.sealedWith(sealedBody, this.secrets.writingFingerprint))
      .map(({ partnerId, environment, key }) => ({ partnerId, environment, key }));
  }

  /** Seals every sealed answer again with `reseal` (`secret:rotate`, in its transaction); how many. */
  resealAnswers(reseal: (sealed: string) => string): Promise<number> {
    return this.keys.resealAll(reseal);
  }
}

/**
 * SHA-256 of the method, the path with its query and the body as parsed JSON re-serialized:
 * the same fields sent with other spacing are the same request (Stripe compares parameters
 * too), another value or field is not.
 */
function fingerprintOf({ method, url, body }: KeyedRequest): Buffer {
  return createHash('sha256')
    .update(`${method.toUpperCase()} ${url}\n`)
    .update(body === undefined ? '' : JSON.stringify(body))
    .digest();
}
