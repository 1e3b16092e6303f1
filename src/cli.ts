/**
 * Entry point of `petstore`. `petstore --version` is what scripts, installers and shell
 * prompts call most: it is answered here, before commander and the rest of the CLI load.
 * Everything else, `--version` among other arguments included, goes through main.ts.
 */
import module from "node:module";
import { VERSION } from "./program/version.js";

const argv = process.argv.slice(2);
if (argv.length === 1 && argv[0] === "--version") {
  process.stdout.write(`${VERSION}\n`);
} else {
  // Node 22.1+ can keep the compiled code of the bundle between runs, so later runs skip
  // compiling it; Node 20 has no such cache and goes on without it.
  (module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
  await import("./main.js");
}
