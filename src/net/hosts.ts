// What a host name names, for the places that decide by it: this machine's loopback (a server
// without keys answers only requests addressed there; a cookie may be Secure over plain HTTP there),
// or this machine and its private networks (where a remote server's metadata may not send agentd).
// Names only: a DNS name that resolves to such an address is not caught (no lookup is made).
import { BlockList, isIP } from 'node:net';

/** Loopback, private, link-local (cloud metadata), CGNAT and unspecified addresses. */
const INTERNAL = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const)
  INTERNAL.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 127],
  ['fc00::', 7],
  ['fe80::', 10],
] as const)
  INTERNAL.addSubnet(net, prefix, 'ipv6');

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** A host name as a URL's hostname gives it, IPv6 brackets and case dropped. */
const bare = (host: string) => host.replace(/^\[|\]$/g, '').toLowerCase();

/** Whether `host` (a URL's hostname: `localhost`, `app.localhost`, `127.0.0.2`, `[::1]`) is this machine's loopback. */
export function isLoopbackHost(host: string): boolean {
  const name = bare(host);
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  const family = isIP(name);
  // BlockList matches an IPv4-mapped IPv6 address (::ffff:7f00:1) against the IPv4 subnets.
  return family !== 0 && LOOPBACK.check(name, family === 4 ? 'ipv4' : 'ipv6');
}

/** Whether `host` names this machine or a private network: loopback, or an internal address literal. */
export function isInternalHost(host: string): boolean {
  if (isLoopbackHost(host)) return true;
  const name = bare(host);
  const family = isIP(name);
  return family !== 0 && INTERNAL.check(name, family === 4 ? 'ipv4' : 'ipv6');
}
