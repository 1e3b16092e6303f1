/** An IoStreams object whose stdout is kept, for tests of what a formatter writes. */
import { createIoStreams, type IoStreams } from "../../src/output/io-streams.js";

/** IoStreams without colour on a terminal (`isTTY`) or a pipe; `out()` is what was written. */
export function captureIo(isTTY: boolean): { streams: IoStreams; out: () => string } {
  let out = "";
  const streams = createIoStreams({
    out: { write: (text: string) => (out += text) },
    err: { write: () => undefined },
    isTTY,
    env: {},
    colorFlag: false,
  });
  return { streams, out: () => out };
}
