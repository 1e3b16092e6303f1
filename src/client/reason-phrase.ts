/**
 * The reason phrase of an HTTP status ("Not Found"), from node:http's STATUS_CODES. It is read
 * with process.getBuiltinModule, not imported: on Node 24 an ESM import of node:http reads every
 * export, and its lazy WebSocket getter loads Node's internal copy of undici, ~30 ms a run.
 */
export function reasonPhrase(status: number): string | undefined {
  return process.getBuiltinModule("node:http").STATUS_CODES[status];
}
