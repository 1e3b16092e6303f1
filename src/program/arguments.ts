/**
 * Parsers of arguments and numeric options shared by commands: bad input is exit 2 and nothing
 * is sent. Every whole number follows the one rule of src/api/limits.ts (digits only, no
 * leading zeros, whitespace around it ignored).
 */
import { InvalidArgumentError } from "commander";
import { readPetId, readQuantity, readWrittenWholeNumber } from "../api/limits.js";
import { UsageError } from "../errors.js";

/** A `<petId>` argument: a positive int64, exactly. */
export function petIdArgument(text: string): bigint {
  const reading = readPetId(text);
  if (!reading.ok) throw new UsageError(`invalid petId "${text}": ${reading.reason}`);
  return reading.value;
}

/** A `<quantity>` argument: a whole number from 0 to 2147483647. */
export function quantityArgument(text: string): number {
  const reading = readQuantity(text);
  if (!reading.ok) throw new UsageError(`invalid quantity "${text}": ${reading.reason}`);
  return reading.value;
}

/**
 * A commander argParser for a numeric option: a whole number from `min` to `max` (safe
 * integers). `expected` names it in the error, as in "expected a port number from 0 to 65535."
 * (commander prefixes the option and the value given).
 */
export function wholeNumberOption(
  expected: string,
  min: number,
  max: number,
): (text: string) => number {
  return (text) => {
    const reading = readWrittenWholeNumber(text, BigInt(min), BigInt(max));
    if (reading.ok) return Number(reading.value);
    throw new InvalidArgumentError(
      reading.reason.startsWith("leading zeros")
        ? `${reading.reason} (${expected} from ${min} to ${max}).`
        : `expected ${expected} from ${min} to ${max}.`,
    );
  };
}
