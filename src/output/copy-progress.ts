/** The progress bar of `db copy`, on stderr, drawn only where the caller says stderr is a terminal. */
import { progressBar } from "./progress-bar.js";

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
  const bar = progressBar(
    stream,
    "copying [{bar}] {value}/{total} rows ({table}), eta {eta_formatted}",
  );
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
