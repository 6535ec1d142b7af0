import fc from 'fast-check';
import { KeyedTransactionSlots } from '../../src/modules/idempotency/application/keyed-transaction-slots.js';

/** Keyed requests' transactions at once (ADR 0158): half the pool, half of that per partner, first come first served. */

const settle = () => new Promise((resolve) => setImmediate(resolve));

/** A request in a slot until the test ends it. */
interface Arrival {
  partnerId: string;
  started: boolean;
  end?: () => void;
  done: Promise<unknown>;
}

function arrive(slots: KeyedTransactionSlots, partnerId: string): Arrival {
  const arrival: Arrival = { partnerId, started: false, done: Promise.resolve() };
  arrival.done = slots.run(
    partnerId,
    () =>
      new Promise<void>((resolve) => {
        arrival.started = true;
        arrival.end = resolve;
      }),
  );
  return arrival;
}

describe('KeyedTransactionSlots', () => {
  it('takes half the pool, and gives one partner half of that, rounded up', () => {
    expect([20, 8, 3, 2].map((pool) => KeyedTransactionSlots.forPool(pool)).map(({ total, perPartner }) => [total, perPartner])).toEqual([
      [10, 5],
      [4, 2],
      [2, 1],
      [1, 1],
    ]);
  });

  it("starts another partner's request while one partner waits behind its own", async () => {
    const slots = new KeyedTransactionSlots(3, 2);
    const a = [arrive(slots, 'a'), arrive(slots, 'a'), arrive(slots, 'a')];
    const b = arrive(slots, 'b');
    await settle();
    expect(a.map((arrival) => arrival.started)).toEqual([true, true, false]);
    expect(b.started).toBe(true);
    expect([slots.held(), slots.waitingCount()]).toEqual([3, 1]);
    a[0].end!();
    await settle();
    expect(a[2].started).toBe(true);
    a[1].end!();
    a[2].end!();
    b.end!();
    await Promise.all([...a, b].map((arrival) => arrival.done));
    expect(slots.held()).toBe(0);
  });

  it('refuses a request that found no slot in time with 503 and Retry-After, and never starts it', async () => {
    const slots = new KeyedTransactionSlots(1, 1, 20);
    const holder = arrive(slots, 'a');
    const late = arrive(slots, 'b');
    await expect(late.done).rejects.toMatchObject({ kind: 'temporarily_unavailable', details: { retryAfterSeconds: 1 } });
    holder.end!();
    await holder.done;
    await settle();
    expect(late.started).toBe(false);
    expect(slots.held()).toBe(0);
  });

  it('frees the slot of a work that failed', async () => {
    const slots = new KeyedTransactionSlots(1, 1);
    await expect(slots.run('a', () => Promise.reject(new Error('rolled back')))).rejects.toThrow('rolled back');
    expect(slots.held('a')).toBe(0);
    await expect(slots.run('a', () => Promise.resolve('next'))).resolves.toBe('next');
  });

  it('never holds more than its slots, nor a partner more than its share, and leaves no request waiting that could start (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.oneof(fc.record({ arrive: fc.constantFrom('a', 'b', 'c') }), fc.record({ end: fc.nat() })), { maxLength: 40 }),
        async (total, share, steps) => {
          const slots = new KeyedTransactionSlots(total, Math.min(share, total));
          const arrivals: Arrival[] = [];
          const running = () => arrivals.filter((arrival) => arrival.started && arrival.end);
          for (const step of steps) {
            if ('arrive' in step) arrivals.push(arrive(slots, step.arrive));
            else {
              const candidates = running();
              const ending = candidates[step.end % Math.max(1, candidates.length)];
              ending?.end!();
              if (ending) ending.end = undefined;
            }
            await settle();
            expect(slots.held()).toBeLessThanOrEqual(slots.total);
            for (const partner of ['a', 'b', 'c']) expect(slots.held(partner)).toBeLessThanOrEqual(slots.perPartner);
            for (const waiting of arrivals.filter((arrival) => !arrival.started)) {
              expect(slots.held() === slots.total || slots.held(waiting.partnerId) === slots.perPartner).toBe(true);
            }
          }
          // Ending every request in turn starts every waiting one.
          while (running().length > 0) {
            for (const arrival of running()) {
              arrival.end!();
              arrival.end = undefined;
            }
            await settle();
          }
          expect(arrivals.every((arrival) => arrival.started)).toBe(true);
          await Promise.all(arrivals.map((arrival) => arrival.done));
          expect(slots.held()).toBe(0);
        },
      ),
    );
  });
});
