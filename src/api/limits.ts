/** Bounds decided for values the spec leaves open, and the parsers that enforce them. */

/** Largest int64: the largest `petId`. */
export const MAX_PET_ID = 9223372036854775807n;

/** `quantity` is a JSON integer from 0 to 2^31 - 1. */
export const MIN_QUANTITY = 0;
export const MAX_QUANTITY = 2147483647;

const DECIMAL_ID = /^[1-9][0-9]{0,18}$/;

/**
 * Parses a decimal `petId` exactly: a positive int64 written without sign,
 * leading zeros, spaces or exponent. Returns undefined for anything else.
 */
export function parsePetId(text: string): bigint | undefined {
  if (!DECIMAL_ID.test(text)) return undefined;
  const id = BigInt(text);
  return id <= MAX_PET_ID ? id : undefined;
}

/** True when `value` is a number the server accepts as a `quantity`. */
export function isValidQuantity(value: unknown): value is number {
  return (
    typeof value === "number" &&
    Number.isInteger(value) &&
    value >= MIN_QUANTITY &&
    value <= MAX_QUANTITY
  );
}
