/**
 * The `petstore` program as run() builds it, on dependencies that reach nothing outside: what
 * the manual and the guides' option lists are generated from. Defining the commands runs none
 * of them, so nothing here loads the API client or the server.
 */
import { Writable } from "node:stream";
import type { Command } from "commander";
import type { Deps } from "../program/deps.js";
import { Factory } from "../program/factory.js";
import { rootCommand } from "../commands/root.js";

function discard(): Writable {
  return new Writable({
    write(_chunk, _encoding, callback) {
      callback();
    },
  });
}

/** rootCommand() on inert dependencies, with an empty environment. */
export function documentedProgram(): Command {
  const deps: Deps = {
    stdout: discard(),
    stderr: discard(),
    stdoutIsTTY: false,
    env: {},
    readFile: () => Promise.reject(new Error("the documented program reads no files")),
    sleep: () => Promise.resolve(),
    random: () => 0.5,
    newIdempotencyKey: () => "00000000-0000-4000-8000-000000000000",
    now: () => 0,
  };
  return rootCommand(new Factory(deps));
}
