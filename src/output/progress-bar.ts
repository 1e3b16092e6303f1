/** The one look of a progress bar (apply, adjust --file, db copy): cli-progress on stderr. */
import { SingleBar } from "cli-progress";

/**
 * A bar drawn on `stream`, which the caller decided is a terminal; `format` is cli-progress's,
 * with the `{bar}`, `{value}`, `{total}` and `{eta_formatted}` it fills and payload fields.
 */
export function progressBar(stream: NodeJS.WritableStream, format: string): SingleBar {
  return new SingleBar({
    stream,
    format,
    barCompleteChar: "#",
    barIncompleteChar: "-",
    barsize: 30,
    clearOnComplete: true,
    hideCursor: false,
    // The signals are main.ts's business: the bar must not install handlers of its own.
    gracefulExit: false,
    // The caller decided that stderr is a terminal; do not second-guess it from the stream.
    noTTYOutput: true,
    fps: 10,
  });
}
