/** The progress bar of `inventory apply`, on stderr, drawn only when stderr is a terminal. */
import { SingleBar } from "cli-progress";

/** Told about each settled change; stopped (and cleared) before the report is printed. */
export interface ApplyProgress {
  tick(failed: boolean): void;
  stop(): void;
}

const SILENT: ApplyProgress = { tick: () => undefined, stop: () => undefined };

/** Starts a bar for `total` changes on `target`, or a silent stand-in when it is not a terminal. */
export function startApplyProgress(
  total: number,
  target: { stream: NodeJS.WritableStream; isTTY: boolean },
): ApplyProgress {
  if (!target.isTTY || total === 0) return SILENT;
  const bar = new SingleBar({
    stream: target.stream,
    format: "applying [{bar}] {value}/{total} changes, {failed} failed, eta {eta_formatted}",
    barCompleteChar: "#",
    barIncompleteChar: "-",
    barsize: 30,
    clearOnComplete: true,
    hideCursor: false,
    // The caller decided that stderr is a terminal; do not second-guess it from the stream.
    noTTYOutput: true,
    fps: 10,
  });
  let failed = 0;
  bar.start(total, 0, { failed });
  return {
    tick(rowFailed) {
      if (rowFailed) failed += 1;
      bar.increment(1, { failed });
    },
    stop() {
      bar.stop();
    },
  };
}
