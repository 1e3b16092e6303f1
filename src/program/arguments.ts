/**
 * Parsers of arguments and numeric options shared by commands: bad input is exit 2 and nothing
 * is sent. Every whole number follows the one rule of src/api/limits.ts (digits only, no
 * leading zeros, whitespace around it ignored).
 */
import { InvalidArgumentError } from "commander";
import { checkChangeReason, MAX_CHANGE_REASON_LENGTH } from "../api/change-reason.js";
import {
  MAX_PET_ID,
  MAX_QUANTITY,
  readPetId,
  readQuantity,
  readWrittenWholeNumber,
} from "../api/limits.js";
import { UsageError } from "../errors.js";

/** What a valid petId is, for the hint under a refused one. */
const PET_ID_HINT =
  "a petId is a pet's number, as the petId column of petstore inventory list shows it (such as 42), not its name";

/** A `<petId>` argument: a positive int64, exactly. */
export function petIdArgument(text: string): bigint {
  const reading = readPetId(text);
  if (reading.ok) return reading.value;
  // "leading zeros are not allowed; write 42" already says what to write.
  const hint = reading.reason.startsWith("leading zeros") ? undefined : PET_ID_HINT;
  throw new UsageError(`invalid petId "${text}": ${reading.reason}`, hint);
}

/**
 * The `<quantity>` argument of `set <petId> <quantity>`: a whole number from MIN_QUANTITY to
 * MAX_QUANTITY (0 to 2^31 - 1). A signed number that `adjust` reads as a delta (`-1`, `+5`) is
 * refused all the same, since `set` takes the new count and not a change (as `adjust` takes no
 * unsigned count); its hint names the `adjust` of that delta for `petId`.
 */
export function quantityArgument(text: string, petId: bigint): number {
  const reading = readQuantity(text);
  if (reading.ok) return reading.value;
  const delta = readDelta(text);
  throw new UsageError(
    `invalid quantity "${text}": ${reading.reason}`,
    delta.ok ? adjustHint(petId, delta.value) : quantityHint(text, petId),
  );
}

/**
 * What a valid quantity is: the new count, and its largest value when the one given is above
 * it; nothing more when the reason already says what to write (leading zeros).
 */
function quantityHint(text: string, petId: bigint): string | undefined {
  const trimmed = text.trim();
  if (/^0[0-9]/.test(trimmed)) return undefined;
  return /^[0-9]+$/.test(trimmed)
    ? `a quantity is the new number in stock, at most ${MAX_QUANTITY} (2^31 - 1, the largest the API stores)`
    : `a quantity is the new number in stock, a whole number such as 7: petstore inventory set ${petId} 7`;
}

/** "to take 1 from the count, use: petstore inventory adjust 42 -1" (or to add, with +N). */
function adjustHint(petId: bigint, delta: number): string {
  return delta < 0
    ? `to take ${-delta} from the count, use: petstore inventory adjust ${petId} ${delta}`
    : `to add ${delta} to the count, use: petstore inventory adjust ${petId} +${delta}`;
}

/** What reading a `<delta>` gave: its value, or why the text is none (with a hint when one helps). */
type DeltaReading = { ok: true; value: number } | { ok: false; reason: string; hint?: string };

/**
 * The rule of `adjust`'s `<delta>`: `+N` (received) or `-N` (sold), N a whole number from 1 to
 * MAX_QUANTITY under the one rule. The sign is required, so `adjust 42 5` is not mistaken for
 * `set 42 5` (or the other way round); a delta of 0 is refused because it changes nothing.
 */
function readDelta(text: string): DeltaReading {
  const trimmed = text.trim();
  const sign = trimmed[0];
  const zero = {
    ok: false,
    reason: "a delta of 0 changes nothing",
    hint: "petstore inventory get shows the entry",
  } as const;
  if (trimmed === "0") return zero;
  if (sign !== "+" && sign !== "-") {
    const reading = readQuantity(trimmed);
    return {
      ok: false,
      reason: `expected +N to add or -N to remove, N a whole number from 1 to ${MAX_QUANTITY}`,
      ...(reading.ok
        ? {
            hint: `write +${reading.value} or -${reading.value}; to set the quantity to ${reading.value}, use petstore inventory set`,
          }
        : {}),
    };
  }
  const magnitude = trimmed.slice(1);
  const reading = readWrittenWholeNumber(magnitude, 0n, BigInt(MAX_QUANTITY));
  if (!reading.ok || magnitude !== magnitude.trim()) {
    return {
      ok: false,
      reason:
        !reading.ok && reading.reason.startsWith("leading zeros")
          ? reading.reason.replace(/write /, `write ${sign}`)
          : `expected +N to add or -N to remove, N a whole number from 1 to ${MAX_QUANTITY}`,
    };
  }
  if (reading.value === 0n) return zero;
  return { ok: true, value: sign === "-" ? -Number(reading.value) : Number(reading.value) };
}

/** A `<delta>` argument of `adjust` (the rule of readDelta); anything else is exit 2. */
export function deltaArgument(text: string): number {
  const reading = readDelta(text);
  if (reading.ok) return reading.value;
  throw new UsageError(`invalid delta "${text}": ${reading.reason}`, reading.hint);
}

/** The rule of a reason, as the hint under a refused `--reason` says it. */
const REASON_HINT = `a reason is one line of at most ${MAX_CHANGE_REASON_LENGTH} characters, kept in the entry's history`;

/**
 * A commander argParser for `--reason TEXT`: the rule of src/api/change-reason.ts. A refusal
 * is a UsageError, not commander's InvalidArgumentError, whose message would repeat the whole
 * text; one that is too long says "at most 200 are allowed", as the server does.
 */
export function reasonOption(text: string): string {
  const checked = checkChangeReason(text);
  if (checked.ok) return checked.value;
  throw new UsageError(`--reason is refused: ${checked.problem}`, REASON_HINT);
}

/** The `--reason` option of the commands that change stock. */
export const REASON_OPTION_HELP = `why, kept in the entry's history (X-Change-Reason; at most ${MAX_CHANGE_REASON_LENGTH} characters)`;

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

/**
 * A commander argParser for a cursor of the change feed (`--after SEQ`): a whole number from 0
 * to 2^63 - 1 under the one rule, exact (a bigint).
 */
export function seqOption(text: string): bigint {
  const reading = readWrittenWholeNumber(text, 0n, MAX_PET_ID);
  if (reading.ok) return reading.value;
  throw new InvalidArgumentError(
    reading.reason.startsWith("leading zeros")
      ? `${reading.reason} (a seq from 0 to ${MAX_PET_ID}).`
      : `expected a seq, a whole number from 0 to ${MAX_PET_ID}.`,
  );
}
