/** A conditional write that found the entry changed (412): exit 8, with the quantity it holds now. */
import type { ApiClient } from "../../client/api-client.js";
import { quantityOfETag } from "../../client/etag.js";
import { CliError } from "../../errors.js";
import { type ApiError } from "../../client/errors.js";
import { EXIT_CODES } from "../../exit-codes.js";

/** The entry no longer held what the write was conditional on; nothing was changed. */
export class QuantityConflictError extends CliError {
  /** The entry's quantity when the conflict was found, when known. */
  readonly current: number | undefined;

  constructor(message: string, hint: string, current: number | undefined) {
    super(message, EXIT_CODES.conflict, hint);
    this.current = current;
  }
}

/**
 * The quantity a 412 says the entry holds: from its ETag, else from one more read (undefined
 * when that read fails too: the conflict is still reported, without the number).
 */
export async function quantityAfterConflict(
  error: ApiError,
  petId: bigint,
  client: ApiClient,
): Promise<number | undefined> {
  const fromTag = quantityOfETag(error.etag);
  if (fromTag !== undefined) return fromTag;
  try {
    return (await client.getInventoryItem(petId)).item.quantity;
  } catch {
    return undefined;
  }
}
