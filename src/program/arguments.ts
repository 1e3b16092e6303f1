/** Parsers of positional arguments shared by commands; bad input is exit 2, nothing sent. */
import { isValidQuantity, MAX_PET_ID, MAX_QUANTITY, parsePetId } from "../api/limits.js";
import { UsageError } from "../errors.js";

/** A `<petId>` argument: a positive int64, exactly. */
export function petIdArgument(text: string): bigint {
  const petId = parsePetId(text);
  if (petId === undefined) {
    throw new UsageError(
      `invalid petId "${text}": expected a whole number from 1 to ${MAX_PET_ID}`,
    );
  }
  return petId;
}

/** A `<quantity>` argument: a whole number from 0 to 2147483647, written plainly. */
export function quantityArgument(text: string): number {
  const quantity = /^(0|[1-9][0-9]*)$/.test(text) ? Number(text) : Number.NaN;
  if (!isValidQuantity(quantity)) {
    throw new UsageError(
      `invalid quantity "${text}": expected a whole number from 0 to ${MAX_QUANTITY}`,
    );
  }
  return quantity;
}
