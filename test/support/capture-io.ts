/** An IoStreams object whose stdout and stderr are kept, for tests of what a command writes. */
import { createIoStreams, type IoStreams } from "../../src/output/io-streams.js";

/**
 * IoStreams without colour on a terminal (`isTTY`) or a pipe; `out()` and `err()` are what
 * was written to each.
 */
export function captureIo(isTTY = false): {
  streams: IoStreams;
  out: () => string;
  err: () => string;
} {
  let out = "";
  let err = "";
  const streams = createIoStreams({
    out: { write: (text: string) => (out += text) },
    err: { write: (text: string) => (err += text) },
    isTTY,
    env: {},
    colorFlag: false,
  });
  return { streams, out: () => out, err: () => err };
}
