/** The --verbose HTTP trace on stderr. The client has already redacted Authorization. */
import type { TraceEvent } from "../client/api-client.js";
import { reasonPhrase } from "../client/reason-phrase.js";

const MAX_BODY = 4_000;

function body(prefix: string, text: string | undefined): string {
  if (text === undefined || text === "") return "";
  const shown =
    text.length > MAX_BODY ? `${text.slice(0, MAX_BODY)}… (${text.length} chars)` : text;
  return `${prefix} ${shown.replace(/\n/g, `\n${prefix} `)}\n`;
}

function headers(prefix: string, values: Readonly<Record<string, string>>): string {
  return Object.entries(values)
    .map(([name, value]) => `${prefix} ${name}: ${value}\n`)
    .join("");
}

/** Formats one trace event as lines: `*` notes, `>` sent, `<` received. */
export function formatTraceEvent(event: TraceEvent): string {
  switch (event.kind) {
    case "request":
      return (
        `* attempt ${event.attempt}: ${event.method} ${event.url}\n` +
        headers(">", event.headers) +
        body(">", event.body)
      );
    case "response":
      return (
        `< ${event.status} ${reasonPhrase(event.status) ?? ""} (${Math.round(event.elapsedMs)} ms)\n` +
        headers("<", event.headers) +
        body("<", event.body)
      );
    case "failure":
      return `* ${event.method} ${event.url} failed after ${Math.round(event.elapsedMs)} ms: ${event.message}\n`;
    case "retry":
      return `* retrying in ${event.delayMs} ms (attempt ${event.nextAttempt}) after: ${event.reason}\n`;
  }
}
