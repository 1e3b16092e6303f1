/** The store's lock time-out from `PETSTORE_LOCK_TIMEOUT_MS`, read once at start-up. */
import { OperatorError } from "../api/operator-error.js";
import { DEFAULT_LOCK_TIMEOUT_MS } from "./store/store.js";

/** The largest accepted time-out: past the 30 s request time-out a wait serves nobody. */
const MAX_LOCK_TIMEOUT_MS = 30_000;

/**
 * How long a request waits for another process's lock on the database before a 503: the
 * variable's value in milliseconds (1 to 30000), or 5000 when it is unset or empty.
 */
export function lockTimeoutFrom(value: string | undefined): number {
  if (value === undefined || value === "") return DEFAULT_LOCK_TIMEOUT_MS;
  const ms = Number(value);
  if (!/^[0-9]{1,5}$/.test(value) || ms < 1 || ms > MAX_LOCK_TIMEOUT_MS) {
    throw new OperatorError(
      "configuration",
      `PETSTORE_LOCK_TIMEOUT_MS must be a whole number of milliseconds from 1 to ${MAX_LOCK_TIMEOUT_MS}, not "${value}"`,
    );
  }
  return ms;
}
