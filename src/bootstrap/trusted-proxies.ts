import { BlockList, isIPv4 } from 'node:net';
import type { TrustedProxies } from '../config/app-config.js';

/** What Fastify's `trustProxy` takes: a list, or `(address, hop)` where hop 0 is the socket's peer. */
export type ProxyTrust = false | string[] | ((address: string, hop: number) => boolean);

/**
 * The addresses a proxy of the operator's own network has: loopback, link-local and the
 * private ranges (proxy-addr's `loopback`, `linklocal`, `uniquelocal`).
 */
const PROXY_NETWORKS = (() => {
  const networks = new BlockList();
  for (const [prefix, bits] of [
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['10.0.0.0', 8],
    ['172.16.0.0', 12],
    ['192.168.0.0', 16],
  ] as const) {
    networks.addSubnet(prefix, bits, 'ipv4');
  }
  for (const [prefix, bits] of [
    ['::1', 128],
    ['fe80::', 10],
    ['fc00::', 7],
  ] as const) {
    networks.addSubnet(prefix, bits, 'ipv6');
  }
  return networks;
})();

function inProxyNetwork(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const ipv4 = mapped ?? (isIPv4(address) ? address : undefined);
  return ipv4 !== undefined ? PROXY_NETWORKS.check(ipv4, 'ipv4') : PROXY_NETWORKS.check(address, 'ipv6');
}

/**
 * Fastify (proxy-addr) walks `X-Forwarded-For` from the service outwards and takes the
 * first address it does not trust: the one the last trusted proxy saw. A hop count alone
 * would trust whatever stands at those positions, so a count above the real number of
 * proxies reaches entries the client wrote (docs/limits.md). Here a counted hop is also
 * trusted only while its address is in the proxies' own networks: the walk stops at the
 * first public address, the client's as the edge proxy saw it.
 */
export function proxyTrust(trusted: TrustedProxies): ProxyTrust {
  if (typeof trusted !== 'number') return trusted;
  return (address: string, hop: number) => hop < trusted && inProxyNetwork(address);
}
