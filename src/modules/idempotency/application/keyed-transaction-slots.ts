import { DomainError } from '../../../shared/errors/domain-error.js';

/** How long a keyed request waits for a slot: as long as it would wait for a pooled connection. */
export const SLOT_WAIT_MS = 5000;

/**
 * How many keyed requests may hold a transaction at once in this process (ADR 0158). A keyed
 * request's work and its answer commit together, so it holds a pooled connection until
 * then, and its work may need another: a cache load leaves the transaction for a
 * connection of its own. Were every connection held by such a transaction, that load would
 * wait on the connections its callers hold. So keyed transactions take at most half the
 * pool (rounded up: the pool has at least 2), and one partner at most half of those: a
 * partner flooding keyed writes waits behind its own, not another's.
 */
export class KeyedTransactionSlots {
  private open = 0;
  private readonly openBy = new Map<string, number>();
  /** Waiting requests, first come first served among those whose partner may take a slot. */
  private readonly waiting: { partnerId: string; start: () => void }[] = [];

  constructor(
    readonly total: number,
    readonly perPartner: number,
    private readonly waitMs = SLOT_WAIT_MS,
  ) {}

  static forPool(poolSize: number): KeyedTransactionSlots {
    const total = Math.ceil(poolSize / 2);
    return new KeyedTransactionSlots(total, Math.ceil(total / 2));
  }

  /**
   * Runs the work in a slot of the partner's once one is free. Refused (503, nothing done)
   * when none frees within the wait.
   */
  async run<T>(partnerId: string, work: () => Promise<T>): Promise<T> {
    await this.take(partnerId);
    try {
      return await work();
    } finally {
      this.give(partnerId);
    }
  }

  /** Slots held now, in all and by one partner. */
  held(partnerId?: string): number {
    return partnerId === undefined ? this.open : (this.openBy.get(partnerId) ?? 0);
  }

  /** Requests waiting for a slot now. */
  waitingCount(): number {
    return this.waiting.length;
  }

  private take(partnerId: string): Promise<void> {
    // No waiter could take a slot now (each freed slot goes to the first that can), so an
    // arrival that can take one jumps no queue.
    if (this.mayTake(partnerId)) {
      this.hold(partnerId);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        partnerId,
        start: () => {
          clearTimeout(timer);
          this.hold(partnerId);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        reject(busy());
      }, this.waitMs);
      timer.unref();
      this.waiting.push(waiter);
    });
  }

  private give(partnerId: string): void {
    this.open -= 1;
    const left = (this.openBy.get(partnerId) ?? 1) - 1;
    if (left === 0) this.openBy.delete(partnerId);
    else this.openBy.set(partnerId, left);
    for (let i = 0; i < this.waiting.length && this.open < this.total;) {
      if (this.mayTake(this.waiting[i].partnerId)) this.waiting.splice(i, 1)[0].start();
      else i += 1;
    }
  }

  private mayTake(partnerId: string): boolean {
    return this.open < this.total && this.held(partnerId) < this.perPartner;
  }

  private hold(partnerId: string): void {
    this.open += 1;
    this.openBy.set(partnerId, this.held(partnerId) + 1);
  }
}

const busy = () =>
  new DomainError('temporarily_unavailable', 'Too many keyed writes are in progress; nothing was done. Retry after Retry-After with the same key.', {
    retryAfterSeconds: 1,
  });
