import { isIPv4, isIPv6 } from 'node:net';

/**
 * The key a source address spends its budgets under (DECISIONS 27). An IPv6 host is
 * usually given a whole /64 and can pick any address in it, so every address of one /64
 * shares a budget; an IPv4-mapped IPv6 address is its IPv4 address.
 */
export function sourceAddressKey(ip: string): string {
  if (isIPv4(ip)) return ip;
  const address = ip.split('%')[0];
  if (!isIPv6(address)) return ip;
  const groups = expandIPv6(address);
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` filled, a trailing IPv4 part split). */
function expandIPv6(address: string): number[] {
  const toGroups = (part: string) =>
    part === ''
      ? []
      : part.split(':').flatMap((piece) => {
          if (!piece.includes('.')) return [parseInt(piece, 16)];
          const [a, b, c, d] = piece.split('.').map(Number);
          return [(a << 8) | b, (c << 8) | d];
        });
  const [head, tail] = address.split('::');
  const headGroups = toGroups(head);
  const tailGroups = tail === undefined ? [] : toGroups(tail);
  return [...headGroups, ...new Array<number>(8 - headGroups.length - tailGroups.length).fill(0), ...tailGroups];
}
