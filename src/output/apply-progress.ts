/** The progress bar of `inventory apply`, on stderr, drawn only where IoStreams says to. */
import { progressBar } from "./progress-bar.js";

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
  const bar = progressBar(
    stream,
    "applying [{bar}] {value}/{total} changes, {failed} failed, eta {eta_formatted}",
  );
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
