/** The progress bar of `db copy`, on stderr, drawn only where the caller says stderr is a terminal. */
import { SingleBar } from "cli-progress";

/** Told how far the copy got; stopped (and cleared) before the report or an error is printed. */
export interface CopyProgress {
  /** `copied` of `total` rows of every table are in the target; `table` is the one being copied. */
  update(copied: number, total: number, table: string): void;
  /** Clears the bar; later updates are ignored. */
  stop(): void;
}

const SILENT: CopyProgress = {
  update: () => undefined,
  stop: () => undefined,
};

/**
 * A bar on `stream` (stderr when it is a terminal), or a silent stand-in when `stream` is
 * undefined (a pipe, a file, cron). It starts at the first update, when the total is known.
 */
export function startCopyProgress(stream: NodeJS.WritableStream | undefined): CopyProgress {
  if (stream === undefined) return SILENT;
  const bar = new SingleBar({
    stream,
    format: "copying [{bar}] {value}/{total} rows ({table}), eta {eta_formatted}",
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
  let started = false;
  let stopped = false;
  return {
    update(copied, total, table) {
      if (stopped) return;
      if (!started) {
        started = true;
        bar.start(total, copied, { table });
        return;
      }
      bar.update(copied, { table });
    },
    stop() {
      if (stopped) return;
      stopped = true;
      if (started) bar.stop();
    },
  };
}
