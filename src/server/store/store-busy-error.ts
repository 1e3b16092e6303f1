/**
 * A store operation gave up waiting for a lock another process holds on the database (a
 * backup, the `sqlite3` shell, a second server): nothing was read or changed, and trying
 * again later may succeed. Reads and start-up throw it; a write answers `{ kind: "busy" }`.
 */
export class StoreBusyError extends Error {
  /** How long the operation waited for the lock before giving up, in milliseconds. */
  readonly waitedMs: number;

  constructor(message: string, waitedMs: number) {
    super(message);
    this.name = "StoreBusyError";
    this.waitedMs = waitedMs;
  }
}
