/**
 * The CLI's Idempotency-Keys: UUID version 7 (RFC 9562, section 5.7), whose first 48 bits are
 * the time in milliseconds and the rest random. Keys made later sort later, so a server that
 * indexes its keys (ours keeps them 24 hours in a B-tree) appends each one beside the last
 * instead of writing to a random page of its index: a write with a key costs it about as much
 * as one without. 74 random bits keep two keys of one millisecond apart.
 */

/**
 * A UUIDv7 for the time `now` (Unix ms) from `random`, 16 random bytes of which the first 6
 * are replaced by the time and 4 bits each by the version and the variant.
 */
export function timeOrderedUuid(
  now: number = Date.now(),
  random: Uint8Array = crypto.getRandomValues(new Uint8Array(16)),
): string {
  const bytes = Uint8Array.from(random);
  let time = Math.floor(now);
  for (let index = 5; index >= 0; index--) {
    bytes[index] = time % 256;
    time = Math.floor(time / 256);
  }
  bytes[6] = 0x70 | ((bytes[6] ?? 0) & 0x0f);
  bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f);
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
