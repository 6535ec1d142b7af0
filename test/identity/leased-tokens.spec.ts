import { LEASE_IDLE_MS, LEASE_MAX_AGE_MS, LeasedTokens } from '../../src/modules/rate-limiting/domain/leased-tokens.js';

describe('LeasedTokens', () => {
  let now = 0;
  const leases = () => new LeasedTokens(() => now);

  it('spends a lease token by token and reports the shared level with what it still holds', () => {
    now = 0;
    const held = leases();
    held.hold('a', 2, 40);
    expect(held.spend('a')).toBe(41);
    expect(held.spend('a')).toBe(40);
    expect(held.spend('a')).toBeUndefined();
    expect(held.spend('b')).toBeUndefined();
  });

  it('keeps a lease in use past its first second, up to its maximum age', () => {
    now = 0;
    const held = leases();
    held.hold('a', 1_000, 0);
    for (now = 500; now < LEASE_MAX_AGE_MS; now += 500) expect(held.spend('a')).toBeDefined();
    now = LEASE_MAX_AGE_MS;
    expect(held.spend('a')).toBeUndefined();
  });

  it('drops a lease left unused for a second', () => {
    now = 0;
    const held = leases();
    held.hold('a', 10, 0);
    now = LEASE_IDLE_MS - 1;
    expect(held.spend('a')).toBeDefined();
    now += LEASE_IDLE_MS;
    expect(held.spend('a')).toBeUndefined();
  });

  it('forgets every lease rather than grow past its key limit', () => {
    now = 0;
    const held = new LeasedTokens(() => now, 2);
    held.hold('a', 5, 0);
    held.hold('b', 5, 0);
    held.hold('a', 5, 0);
    expect(held.spend('b')).toBeDefined();
    held.hold('c', 5, 0);
    expect(held.spend('a')).toBeUndefined();
    expect(held.spend('c')).toBeDefined();
  });
});
