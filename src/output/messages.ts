/** Messages on stderr: errors with hints people can act on, and warnings. */

/**
 * The stderr text of how a run ends (src/program/exit.ts decides it): `error: <message>`, a
 * `hint:` line, and a bug's stack when --verbose asked for it; nothing without a message.
 */
export function formatExit(exit: {
  message?: string | undefined;
  hint?: string | undefined;
  stack?: string | undefined;
}): string {
  if (exit.message === undefined) return "";
  const hint = exit.hint === undefined ? "" : `hint: ${exit.hint}\n`;
  const stack = exit.stack === undefined ? "" : `${exit.stack}\n`;
  return `error: ${exit.message}\n${hint}${stack}`;
}

function deprecationDate(value: string): string {
  // RFC 9745: "@<unix-seconds>"; older drafts used an HTTP-date or "true".
  const seconds = /^@(-?[0-9]+)$/.exec(value.trim())?.[1];
  const date = seconds === undefined ? new Date(value) : new Date(Number(seconds) * 1000);
  return Number.isNaN(date.getTime()) ? value : date.toISOString().slice(0, 10);
}

/** The one warning printed when a response says its operation is deprecated or sunset. */
export function formatDeprecationWarning(notice: {
  method: string;
  url: string;
  deprecation: string | undefined;
  sunset: string | undefined;
}): string {
  const since =
    notice.deprecation === undefined || notice.deprecation.trim() === "true"
      ? ""
      : ` since ${deprecationDate(notice.deprecation)}`;
  const until =
    notice.sunset === undefined ? "" : `; it stops working after ${deprecationDate(notice.sunset)}`;
  return `warning: the server marks ${notice.method} ${notice.url} as deprecated${since}${until}\n`;
}

/**
 * The line written before a key is sent over http:// to a host beyond loopback (once a run):
 * a warning, not an error; a cron mail shows it. `origin` is the URL's scheme, host and port.
 */
export function formatClearTextWarning(origin: string): string {
  return `warning: the API key goes to ${origin} unencrypted, readable on the network between: use an https:// URL (petstore serve --tls-cert, or a TLS-terminating proxy)\n`;
}
