import { ReplicaBuckets } from '../../src/modules/rate-limiting/index.js';

describe('ReplicaBuckets', () => {
  let now = 0;
  const clock = () => now;

  it('spends, refuses when empty and refills at its rate', () => {
    now = 0;
    const buckets = new ReplicaBuckets({ name: 'test', ratePerSecond: 2, burst: 3 }, 10, clock);
    for (let i = 0; i < 3; i++) buckets.take('a');
    expect(buckets.level('a')).toBe(0);
    expect(buckets.refusalDetails('a').retryAfterSeconds).toBe(1);
    now = 500;
    expect(buckets.level('a')).toBe(1);
    now = 10_000;
    expect(buckets.level('a')).toBe(3);
  });

  it('takes only while a token is left, and forgets a bucket a give-back fills', () => {
    now = 0;
    const buckets = new ReplicaBuckets({ name: 'test', ratePerSecond: 1, burst: 2 }, 10, clock);
    expect([buckets.take('a'), buckets.take('a'), buckets.take('a')]).toEqual([true, true, false]);
    buckets.giveBack('a');
    expect(buckets.level('a')).toBe(1);
    buckets.giveBack('a');
    expect(buckets.level('a')).toBe(2);
    expect(buckets.take('b')).toBe(true);
    buckets.giveBack('b');
    expect((buckets as unknown as { buckets: Map<string, unknown> }).buckets.size).toBe(0);
  });

  it('keeps at most maxKeys buckets, forgetting the one used longest ago (a forgotten bucket is full)', () => {
    now = 0;
    const buckets = new ReplicaBuckets({ name: 'test', ratePerSecond: 1, burst: 1 }, 2, clock);
    buckets.take('first');
    buckets.take('second');
    buckets.take('first');
    buckets.take('third');
    expect(buckets.level('first')).toBe(0);
    expect(buckets.level('second')).toBe(1);
    expect(buckets.level('third')).toBe(0);
  });
});
