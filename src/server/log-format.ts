/**
 * The server's logger: one JSON object a line, for `jq` and log shippers alike, with an ISO
 * time and never an Authorization header. Every line the server logs goes through one.
 */
import { levels, pino, stdTimeFunctions, type DestinationStream, type Logger } from "pino";

/** The levels PETSTORE_LOG_LEVEL may name. */
export const LOG_LEVELS: readonly string[] = [...Object.keys(levels.values), "silent"];

/** A logger writing to `stream` from `level` up (one of LOG_LEVELS). */
export function serverLogger(stream: DestinationStream, level = "info"): Logger {
  return pino(
    {
      level,
      // ISO 8601 UTC, as an operator searches for it: "time":"2026-11-25T12:00:00.000Z".
      timestamp: stdTimeFunctions.isoTime,
      redact: {
        paths: ["req.headers.authorization", "headers.authorization"],
        censor: "[redacted]",
      },
    },
    stream,
  );
}
