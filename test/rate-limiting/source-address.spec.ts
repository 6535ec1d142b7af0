import fc from 'fast-check';
import { NETWORK_BUDGET_MULTIPLE, sourceAddressKey, sourceBudgets } from '../../src/modules/rate-limiting/domain/source-address.js';

describe('sourceAddressKey', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:DB8:0001:0002:ffff::', '2001:db8:1:2::/64'],
    ['2001:db8::', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['::ffff:198.51.100.4', '198.51.100.4'],
    ['::ffff:c633:6404', '198.51.100.4'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['not an address', 'not an address'],
  ])('keys %s as %s', (ip, key) => {
    expect(sourceAddressKey(ip)).toBe(key);
  });

  it('gives every address of one /64 the same key, and addresses of different /64s different keys', () => {
    const group = fc.integer({ min: 0, max: 0xffff });
    const groups = (n: number) => fc.array(group, { minLength: n, maxLength: n });
    const text = (values: number[]) => values.map((value) => value.toString(16)).join(':');
    fc.assert(
      fc.property(groups(4), groups(4), groups(4), groups(4), (prefixA, hostA, prefixB, hostB) => {
        fc.pre(!(prefixA.slice(0, 2).every((g) => g === 0) && prefixA[2] === 0 && prefixA[3] === 0));
        expect(sourceAddressKey(`${text(prefixA)}:${text(hostA)}`)).toBe(sourceAddressKey(`${text(prefixA)}:${text(hostB)}`));
        const samePrefix = prefixA.every((value, i) => value === prefixB[i]);
        expect(sourceAddressKey(`${text(prefixA)}:${text(hostA)}`) === sourceAddressKey(`${text(prefixB)}:${text(hostB)}`)).toBe(samePrefix);
      }),
    );
  });
});

describe('sourceBudgets', () => {
  const policy = { name: 'failures', ratePerSecond: 1, burst: 10 };

  it('gives an IPv4 address (mapped or not) its own budget only', () => {
    expect(sourceBudgets('203.0.113.7', policy)).toEqual([{ key: '203.0.113.7', policy }]);
    expect(sourceBudgets('::ffff:203.0.113.7', policy)).toEqual([{ key: '203.0.113.7', policy }]);
  });

  it('gives an IPv6 address its /64 budget and a /48 one, NETWORK_BUDGET_MULTIPLE times larger', () => {
    expect(sourceBudgets('2001:db8:aa:bb01:1::7', policy)).toEqual([
      { key: '2001:db8:aa:bb01::/64', policy },
      { key: '2001:db8:aa::/48', policy: { name: 'failures-48', ratePerSecond: NETWORK_BUDGET_MULTIPLE, burst: 10 * NETWORK_BUDGET_MULTIPLE } },
    ]);
    expect(sourceBudgets('2001:db8:aa:ffff::1', policy)[1].key).toBe('2001:db8:aa::/48');
  });
});
