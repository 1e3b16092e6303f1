/** The real `petstore` program, built on inert dependencies, for tests that read its tree. */
import { Writable } from "node:stream";
import type { Command } from "commander";
import type { Deps } from "../../src/program/deps.js";
import { Factory } from "../../src/program/factory.js";
import { createProgram } from "../../src/program/run.js";

const discard = () =>
  new Writable({
    write(_chunk, _encoding, callback) {
      callback();
    },
  });

/** createProgram() as run() builds it; nothing it could do reaches the outside world. */
export function realProgram(): Command {
  const deps: Deps = {
    stdout: discard(),
    stderr: discard(),
    stdoutIsTTY: false,
    env: {},
    readFile: () => Promise.reject(new Error("no files in this test")),
    sleep: () => Promise.resolve(),
    random: () => 0.5,
    newIdempotencyKey: () => "00000000-0000-4000-8000-000000000000",
    now: () => 0,
  };
  return createProgram(new Factory(deps));
}
