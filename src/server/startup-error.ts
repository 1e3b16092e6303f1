/**
 * Why the server could not start: bad configuration (keys, seed file, database path, an
 * address it may not listen on) or a dependency that is down. The server knows nothing of exit
 * codes; `petstore serve` maps each reason to one.
 */
export const STARTUP_FAILURES = ["configuration", "unavailable"] as const;
export type StartupFailure = (typeof STARTUP_FAILURES)[number];

/** A start-up failure the operator can act on: a message, and a hint when one helps. */
export class StartupError extends Error {
  readonly failure: StartupFailure;
  readonly hint: string | undefined;

  constructor(failure: StartupFailure, message: string, hint?: string) {
    super(message);
    this.name = "StartupError";
    this.failure = failure;
    this.hint = hint;
  }
}
