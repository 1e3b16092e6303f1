/**
 * The IO streams object: where data and messages go, whether stdout is a terminal, and
 * whether to colour, decided once here from the TTY, NO_COLOR, FORCE_COLOR and --no-color.
 */
import { Chalk, type ChalkInstance } from "chalk";

/** Anything text can be written to (process.stdout, or a buffer in tests). */
export interface TextSink {
  write(text: string): unknown;
}

export interface IoStreams {
  /** Data only. */
  out: TextSink;
  /** Messages, warnings, errors, traces. */
  err: TextSink;
  /** stdout is a terminal: humans read it (tables, totals). */
  isTTY: boolean;
  color: boolean;
  /** Colour functions; they return text unchanged when `color` is false. */
  style: ChalkInstance;
}

export interface IoStreamsInput {
  out: TextSink;
  err: TextSink;
  isTTY: boolean;
  env: Readonly<Record<string, string | undefined>>;
  /** False when --no-color was given. */
  colorFlag: boolean;
}

/**
 * Decides colour: --no-color wins; then FORCE_COLOR (0/false off, anything else on, as Node
 * does); then NO_COLOR (any non-empty value); else colour when stdout is a terminal and TERM
 * is not "dumb".
 */
export function decideColor(input: Omit<IoStreamsInput, "out" | "err">): boolean {
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
  return {
    out: input.out,
    err: input.err,
    isTTY: input.isTTY,
    color,
    style: new Chalk({ level: color ? 1 : 0 }),
  };
}
