/**
 * The database cannot be reached (refused, reset, shut down, timed out): a read or write could
 * not be made. `petstore serve` answers 503 `unavailable` with `Retry-After` and serves again by
 * itself once the database is back.
 */
export class StoreUnavailableError extends Error {
  /**
   * Whether a write may have been committed all the same: the connection was lost after the
   * commit was sent, so only the database knows. False when nothing was changed.
   */
  readonly maybeCommitted: boolean;

  constructor(message: string, options: { maybeCommitted?: boolean; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = "StoreUnavailableError";
    this.maybeCommitted = options.maybeCommitted ?? false;
  }
}
