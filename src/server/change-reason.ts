/** The `X-Change-Reason` request header, read by the rule in api/change-reason.ts. */
import { checkChangeReason, decodeChangeReason } from "../api/change-reason.js";
import { ERROR_CODES } from "../api/error-codes.js";
import { HttpError } from "./http-error.js";

/** Returns the reason, null when the header is absent, or throws 400 `invalid_header`. */
export function parseChangeReason(header: string | string[] | undefined): string | null {
  if (header === undefined) return null;
  if (Array.isArray(header)) {
    throw new HttpError(400, ERROR_CODES.invalidHeader, "X-Change-Reason was sent more than once");
  }
  const reason = decodeChangeReason(header);
  if (reason === undefined) {
    throw new HttpError(400, ERROR_CODES.invalidHeader, "X-Change-Reason is not UTF-8 text");
  }
  const checked = checkChangeReason(reason);
  if (!checked.ok) {
    throw new HttpError(
      400,
      ERROR_CODES.invalidHeader,
      `X-Change-Reason is refused: ${checked.problem}`,
    );
  }
  return checked.value;
}
