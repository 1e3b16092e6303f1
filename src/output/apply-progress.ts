/** The progress bar of `inventory apply`, on stderr, drawn only where IoStreams says to. */
import { SingleBar } from "cli-progress";

/** Told about each settled change; stopped (and cleared) before the report is printed. */
export interface ApplyProgress {
  tick(failed: boolean): void;
  /** Told about a request of many changes (a batch) that settled `count`, `failed` of them. */
  advance(count: number, failed: number): void;
  /** Clears the bar; later ticks are ignored, so it can be stopped early (on an interrupt). */
  stop(): void;
}

const SILENT: ApplyProgress = {
  tick: () => undefined,
  advance: () => undefined,
  stop: () => undefined,
};

/** Starts a bar for `total` changes on `stream` (IoStreams.progress), or a silent stand-in. */
export function startApplyProgress(
  total: number,
  stream: NodeJS.WritableStream | undefined,
): ApplyProgress {
  if (stream === undefined || total === 0) return SILENT;
  const bar = new SingleBar({
    stream,
    format: "applying [{bar}] {value}/{total} changes, {failed} failed, eta {eta_formatted}",
    barCompleteChar: "#",
    barIncompleteChar: "-",
    barsize: 30,
    clearOnComplete: true,
    hideCursor: false,
    // The signals are main.ts's business: the bar must not install handlers of its own.
    gracefulExit: false,
    // IoStreams decided that stderr is a terminal; do not second-guess it from the stream.
    noTTYOutput: true,
    fps: 10,
  });
  let failed = 0;
  let stopped = false;
  bar.start(total, 0, { failed });
  return {
    tick(rowFailed) {
      if (stopped) return;
      if (rowFailed) failed += 1;
      bar.increment(1, { failed });
    },
    advance(count, countFailed) {
      if (stopped) return;
      failed += countFailed;
      bar.increment(count, { failed });
    },
    stop() {
      if (stopped) return;
      stopped = true;
      bar.stop();
    },
  };
}
