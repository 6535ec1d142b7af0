import { isIPv4, isIPv6 } from 'node:net';
import type { BucketPolicy } from './rate-limit-store.js';

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

/**
 * How many /64 budgets one IPv6 /48 gets in all: a site is usually given a /48, 65 536
 * /64s, and could otherwise spread its failures over as many separate budgets.
 */
export const NETWORK_BUDGET_MULTIPLE = 16;

/** A budget a source address spends, keyed and with its policy. */
export interface SourceBudget {
  key: string;
  policy: BucketPolicy;
}

/**
 * The budgets a request from `ip` spends under `policy`: its address's (an IPv6 /64), and
 * for IPv6 also its /48's, NETWORK_BUDGET_MULTIPLE times as large (burst and rate).
 */
export function sourceBudgets(ip: string, policy: BucketPolicy): SourceBudget[] {
  const own = { key: sourceAddressKey(ip), policy };
  if (!own.key.endsWith('::/64')) return [own];
  const groups = expandIPv6(ip.split('%')[0]);
  const network = `${groups
    .slice(0, 3)
    .map((group) => group.toString(16))
    .join(':')}::/48`;
  const larger = { name: `${policy.name}-48`, ratePerSecond: policy.ratePerSecond * NETWORK_BUDGET_MULTIPLE, burst: policy.burst * NETWORK_BUDGET_MULTIPLE };
  return [own, { key: network, policy: larger }];
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
