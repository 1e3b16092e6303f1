/**
 * `--trust-proxy`: the addresses of reverse proxies whose X-Forwarded-For is believed. A
 * request whose connection comes from one of them is logged (and rate-limited) as the client
 * the header names; from anywhere else, as the connection's own address.
 */
import { isIP } from "node:net";
import { OperatorError } from "../api/operator-error.js";

/**
 * The comma-separated addresses and CIDR ranges of `--trust-proxy`, as Fastify's trustProxy
 * takes them; a part that is neither is a configuration error naming it.
 */
export function parseTrustedProxies(value: string): string[] {
  const parts = value.split(",").map((part) => part.trim());
  for (const part of parts) {
    if (!isAddressOrRange(part)) {
      throw new OperatorError(
        "configuration",
        `--trust-proxy: ${JSON.stringify(part)} is not an IP address or a CIDR range`,
        "give the proxies' addresses separated by commas, such as --trust-proxy 127.0.0.1,10.0.0.0/8",
      );
    }
  }
  return parts;
}

function isAddressOrRange(part: string): boolean {
  const [address = "", prefix, ...rest] = part.split("/");
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}
