/**
 * Whether a host is this machine's loopback, where traffic never reaches a network: the
 * server's clear-text warning and (through isThisMachineAsDestination) the CLI's warning
 * before it sends a key over http:// ask. `localhost`, 127.0.0.0/8, ::1 and ::ffff:127.0.0.0/104; a name is not resolved, so any
 * other name counts as the network (it may resolve anywhere).
 */
import { BlockList, isIP } from "node:net";

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");
LOOPBACK.addSubnet("::ffff:127.0.0.0", 104, "ipv6");

/** `host` as a URL or a --host flag writes it: a name, an address, an IPv6 one in brackets. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (bare.toLowerCase() === "localhost") return true;
  const family = isIP(bare);
  if (family === 0) return false;
  return LOOPBACK.check(bare, family === 4 ? "ipv4" : "ipv6");
}

/**
 * Whether a connection to `host` stays on this machine: loopback, and the unspecified address
 * (0.0.0.0, ::), which as a destination is this machine. As a listening address the
 * unspecified one is every interface, the network: `serve` asks isLoopbackHost.
 */
export function isThisMachineAsDestination(host: string): boolean {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  return bare === "0.0.0.0" || bare === "::" || isLoopbackHost(bare);
}
