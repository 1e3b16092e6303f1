/**
 * Why the server could not start: bad configuration (keys, seed file, database path, an
 * address it may not listen on) or a dependency that is down. StartupError is the one
 * OperatorError (src/api/operator-error.ts) under the name its throwers know: `configuration`
 * or `unavailable`.
 */
export { OperatorError as StartupError } from "../api/operator-error.js";
