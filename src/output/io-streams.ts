/**
 * The IO streams object: where data and messages go, whether stdout and stderr are terminals,
 * whether to colour (from the TTY, NO_COLOR, FORCE_COLOR and --no-color), whether to draw
 * progress, and which symbols the reports may use: all decided once, here.
 */
import { Chalk, type ChalkInstance } from "chalk";

/** Anything text can be written to (process.stdout, or a buffer in tests). */
export interface TextSink {
  /** A stream answers false once its buffer is full (a pipe read slowly). */
  write(text: string): unknown;
  /** A stream emits `drain` once the writes it buffered have been handed on. */
  once?(event: "drain", listener: () => void): unknown;
}

/**
 * Writes `text`, and when the sink's buffer is full resolves only once it has drained: output
 * piped to a slow reader is held by the reader, not in this process (a report of 100,000 rows
 * written at once into a pipe held 50 MB here). A reader that goes away ends the process
 * (main.ts, EPIPE).
 */
export async function writeWithRoom(sink: TextSink, text: string): Promise<void> {
  if (sink.write(text) !== false || sink.once === undefined) return;
  await new Promise<void>((resolve) => sink.once?.("drain", resolve));
}

/**
 * Writes `text` and resolves once the sink has handed it on to the system (a stream's write
 * callback), so that what depends on it having been written (a saved cursor) comes after; a
 * sink that is no stream writes at once. Rejects with the stream's error (a reader gone).
 */
export function writeFlushed(sink: TextSink, text: string): Promise<void> {
  const stream = sink as TextSink & Partial<Pick<NodeJS.WritableStream, "writable">>;
  if (typeof stream.writable !== "boolean") {
    sink.write(text);
    return Promise.resolve();
  }
  const writable = sink as NodeJS.WritableStream;
  return new Promise((resolve, reject) => {
    writable.write(text, (error) => {
      if (error === null || error === undefined) resolve();
      else reject(error);
    });
  });
}

export interface IoStreams {
  /** Data only. */
  out: TextSink;
  /** Messages, warnings, errors, traces. */
  err: TextSink;
  /** stdout is a terminal: humans read it (tables, totals). */
  isTTY: boolean;
  /** stderr is a terminal. */
  errIsTTY: boolean;
  color: boolean;
  /** Colour functions; they return text unchanged when `color` is false. */
  style: ChalkInstance;
  /**
   * Where to draw a progress bar: stderr, when it is a terminal and no --verbose trace is
   * written there; undefined means no progress bar.
   */
  progress: NodeJS.WritableStream | undefined;
  /** Symbols for stdout: Unicode on a terminal, plain ASCII in a pipe, file or cron mail. */
  symbols: Symbols;
  /** The terminal's width in columns when stdout is one and says it; tables fit it. */
  width: number | undefined;
}

/** The few non-letters reports print. */
export interface Symbols {
  arrow: string;
  ellipsis: string;
}

const UNICODE_SYMBOLS: Symbols = { arrow: "→", ellipsis: "…" };
const ASCII_SYMBOLS: Symbols = { arrow: "->", ellipsis: "..." };

export interface IoStreamsInput {
  out: TextSink;
  err: TextSink;
  isTTY: boolean;
  env: Readonly<Record<string, string | undefined>>;
  /** False when --no-color was given. */
  colorFlag: boolean;
  /** Whether stderr is a terminal (default: not). */
  errIsTTY?: boolean | undefined;
  /** The stderr stream itself, for progress bars (default: no progress bar). */
  errStream?: NodeJS.WritableStream | undefined;
  /** --verbose: the HTTP trace goes to stderr, so no progress bar is drawn over it. */
  verbose?: boolean | undefined;
  /** stdout's width in columns, when it is a terminal that says it. */
  columns?: number | undefined;
}

/**
 * Decides colour: --no-color wins; then FORCE_COLOR (0/false off, anything else on, as Node
 * does); then NO_COLOR (any non-empty value); else colour when stdout is a terminal and TERM
 * is not "dumb".
 */
export function decideColor(input: Pick<IoStreamsInput, "isTTY" | "env" | "colorFlag">): boolean {
  if (!input.colorFlag) return false;
  const force = input.env.FORCE_COLOR;
  if (force !== undefined) return force !== "0" && force.toLowerCase() !== "false";
  const noColor = input.env.NO_COLOR;
  if (noColor !== undefined && noColor !== "") return false;
  return input.isTTY && input.env.TERM !== "dumb";
}

/** Builds the IO streams object. */
export function createIoStreams(input: IoStreamsInput): IoStreams {
  const color = decideColor(input);
  const errIsTTY = input.errIsTTY ?? false;
  return {
    out: input.out,
    err: input.err,
    isTTY: input.isTTY,
    errIsTTY,
    color,
    style: new Chalk({ level: color ? 1 : 0 }),
    progress: errIsTTY && input.verbose !== true ? input.errStream : undefined,
    symbols: input.isTTY ? UNICODE_SYMBOLS : ASCII_SYMBOLS,
    width:
      input.isTTY && input.columns !== undefined && input.columns > 0 ? input.columns : undefined,
  };
}
