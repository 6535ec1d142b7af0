import { ReplicaBuckets } from '../../src/modules/rate-limiting/index.js';

describe('ReplicaBuckets', () => {
  let now = 0;
  const clock = () => now;

  it('spends, refuses when empty and refills at its rate', () => {
    now = 0;
    const buckets = new ReplicaBuckets({ name: 'test', ratePerSecond: 2, burst: 3 }, 10, clock);
    for (let i = 0; i < 3; i++) buckets.spend('a');
    expect(buckets.level('a')).toBe(0);
    expect(buckets.refusalFields('a')['Retry-After']).toBe('1');
    now = 500;
    expect(buckets.level('a')).toBe(1);
    now = 10_000;
    expect(buckets.level('a')).toBe(3);
  });

  it('keeps at most maxKeys buckets, forgetting the one spent longest ago (a forgotten bucket is full)', () => {
    now = 0;
    const buckets = new ReplicaBuckets({ name: 'test', ratePerSecond: 1, burst: 1 }, 2, clock);
    buckets.spend('first');
    buckets.spend('second');
    buckets.spend('first');
    buckets.spend('third');
    expect(buckets.level('first')).toBe(0);
    expect(buckets.level('second')).toBe(1);
    expect(buckets.level('third')).toBe(0);
  });
});
