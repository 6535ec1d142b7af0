import { isIP } from 'node:net';
import type { Environment } from '../../../shared/tenancy/tenant.js';

/**
 * Which URLs may receive webhooks (DECISIONS 27), so that a partner cannot make the service
 * call into its own network (SSRF) or probe it:
 * - `public` (live endpoints): https on port 443 or 8443, to public addresses only;
 * - `sandbox` (sandbox endpoints outside production): http or https on any port, to public
 *   or loopback addresses, so a partner can test against a receiver on the machine running
 *   the service (`npm start`);
 * - `sandbox-public` (sandbox endpoints in production): http or https on any port, to
 *   public addresses only. No partner's receiver runs on a production host, so a loopback
 *   URL could only reach the service's neighbours (a sidecar's admin port, say);
 * - `unrestricted` (WEBHOOK_ALLOW_INSECURE_URLS): http or https, any port and address.
 *
 * A host name is checked here only for being localhost; its addresses are checked when it
 * is resolved, at registration and again at every connection (`refusedAddresses`).
 */
export type UrlRules = 'public' | 'sandbox' | 'sandbox-public' | 'unrestricted';

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

/** The rules for an endpoint of `environment`; the insecure setting lifts them all. */
export function urlRulesFor(environment: Environment, allowInsecure: boolean, isProduction: boolean): UrlRules {
  if (allowInsecure) return 'unrestricted';
  if (environment === 'live') return 'public';
  return isProduction ? 'sandbox-public' : 'sandbox';
}

/** Ports a live endpoint may use: https's own, and its common alternative. */
const PUBLIC_PORTS = ['', '443', '8443'];

export function checkEndpointUrl(raw: string, rules: UrlRules): UrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('url must be an absolute URL such as https://example.com/webhooks');
  }
  if (url.protocol !== 'https:' && !(rules !== 'public' && url.protocol === 'http:')) {
    return refuse(rules === 'public' ? 'url must use https' : 'url must use http or https');
  }
  if (url.username || url.password) return refuse('url must not contain a user name or password');
  if (url.hash) return refuse('url must not contain a fragment (#…)');
  if (rules === 'unrestricted') return { ok: true, url };
  if (rules === 'public' && !PUBLIC_PORTS.includes(url.port)) return refuse('url must use port 443 or 8443');
  const host = hostOf(url);
  if (rules !== 'sandbox' && (host === 'localhost' || host.endsWith('.localhost'))) return refuse('url must not point to localhost');
  if (isIP(host)) {
    const reason = addressRefusal(host, rules);
    if (reason) return refuse(`url must point to ${allowedAddresses(rules)} only; ${host} is ${reason}`);
  }
  return { ok: true, url };
}

/** The host to resolve or connect to: without IPv6 brackets or the root label's dot. */
export function hostOf(url: URL): string {
  return url.hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();
}

/**
 * Why a host's resolved addresses may not receive webhooks under `rules`, or null when
 * they may. Every address must pass: a host answering both a public and a private address
 * could have a connection land on the private one.
 */
export function refusedAddresses(host: string, addresses: readonly string[], rules: UrlRules): string | null {
  if (addresses.length === 0) return `${host} does not resolve to any address`;
  if (rules === 'unrestricted') return null;
  for (const address of addresses) {
    const reason = addressRefusal(address, rules);
    if (reason) return `${host} resolves to ${address}, ${reason}`;
  }
  return null;
}

/** What the addresses of an endpoint under `rules` may be, for refusals. */
export const allowedAddresses = (rules: Exclude<UrlRules, 'unrestricted'>): string =>
  rules === 'sandbox' ? 'public or loopback addresses' : 'public addresses';

function addressRefusal(address: string, rules: Exclude<UrlRules, 'unrestricted'>): string | null {
  const reason = nonPublicReason(address);
  if (reason === null) return null;
  return rules === 'sandbox' && reason.startsWith(LOOPBACK) ? null : reason;
}

const LOOPBACK = 'a loopback address';

type Range = readonly [network: string, prefix: number, reason: string];

// Special-purpose IPv4 blocks (IANA registry) that are not reachable public hosts.
const IPV4_RANGES: readonly Range[] = [
  ['0.0.0.0', 8, 'an unspecified address'],
  ['10.0.0.0', 8, 'a private address'],
  ['100.64.0.0', 10, 'a shared (carrier-grade NAT) address'],
  ['127.0.0.0', 8, LOOPBACK],
  ['169.254.0.0', 16, 'a link-local address'],
  ['172.16.0.0', 12, 'a private address'],
  ['192.0.0.0', 24, 'a reserved address'],
  ['192.0.2.0', 24, 'a documentation address'],
  ['192.88.99.0', 24, 'a reserved address'],
  ['192.168.0.0', 16, 'a private address'],
  ['198.18.0.0', 15, 'a benchmarking address'],
  ['198.51.100.0', 24, 'a documentation address'],
  ['203.0.113.0', 24, 'a documentation address'],
  ['224.0.0.0', 4, 'a multicast address'],
  ['240.0.0.0', 4, 'a reserved address'],
];

// Checked in order; anything outside global unicast (2000::/3) is refused after them.
const IPV6_RANGES: readonly Range[] = [
  ['::', 128, 'an unspecified address'],
  ['::1', 128, LOOPBACK],
  ['fe80::', 10, 'a link-local address'],
  ['fec0::', 10, 'a site-local address'],
  ['fc00::', 7, 'a unique-local address'],
  ['ff00::', 8, 'a multicast address'],
  ['2001:db8::', 32, 'a documentation address'],
  ['3fff::', 20, 'a documentation address'],
  ['2001::', 23, 'a reserved address'],
];

// IPv6 prefixes that carry an IPv4 address, which decides: IPv4-mapped, NAT64 and 6to4.
const IPV4_CARRIERS: readonly (readonly [network: string, prefix: number, ipv4Shift: bigint])[] = [
  ['::ffff:0:0', 96, 0n],
  ['64:ff9b::', 96, 0n],
  ['2002::', 16, 80n],
];

/** Why an IP address is not a public one, or null when it is. */
export function nonPublicReason(address: string): string | null {
  const bare = address.replace(/%.*$/, ''); // a zone id (fe80::1%eth0) names an interface
  const family = isIP(bare);
  if (family === 4) return ipv4Reason(ipv4ToNumber(bare));
  if (family === 6) return ipv6Reason(ipv6ToBigInt(bare));
  return 'not an IP address';
}

function ipv4Reason(value: number): string | null {
  const range = IPV4_RANGES.find(([network, prefix]) => sameIpv4Prefix(value, ipv4ToNumber(network), prefix));
  return range ? range[2] : null;
}

function ipv6Reason(value: bigint): string | null {
  for (const [network, prefix, shift] of IPV4_CARRIERS) {
    if (sameIpv6Prefix(value, ipv6ToBigInt(network), prefix)) {
      const reason = ipv4Reason(Number((value >> shift) & 0xffffffffn));
      return reason ? `${reason} (embedded in IPv6)` : null;
    }
  }
  const range = IPV6_RANGES.find(([network, prefix]) => sameIpv6Prefix(value, ipv6ToBigInt(network), prefix));
  if (range) return range[2];
  return sameIpv6Prefix(value, ipv6ToBigInt('2000::'), 3) ? null : 'a reserved address';
}

function sameIpv4Prefix(a: number, b: number, prefix: number): boolean {
  const shift = 32 - prefix;
  return Math.floor(a / 2 ** shift) === Math.floor(b / 2 ** shift);
}

function sameIpv6Prefix(a: bigint, b: bigint, prefix: number): boolean {
  const shift = BigInt(128 - prefix);
  return a >> shift === b >> shift;
}

function ipv4ToNumber(address: string): number {
  return address.split('.').reduce((value, octet) => value * 256 + Number(octet), 0);
}

/** A valid IPv6 address (net.isIP) as a 128-bit number. */
function ipv6ToBigInt(address: string): bigint {
  let text = address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const ipv4 = ipv4ToNumber(dotted[1]);
    text = `${text.slice(0, dotted.index)}${Math.floor(ipv4 / 65536).toString(16)}:${(ipv4 % 65536).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const all = tail === undefined ? groups(head) : [...groups(head), ...Array<string>(8 - groups(head).length - groups(tail).length).fill('0'), ...groups(tail)];
  return all.reduce((value, group) => (value << 16n) | BigInt(parseInt(group, 16)), 0n);
}

function refuse(reason: string): UrlCheck {
  return { ok: false, reason };
}
