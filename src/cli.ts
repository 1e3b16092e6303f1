/**
 * Entry point of `petstore`. `petstore --version` is what scripts, installers and shell
 * prompts call most: it is answered here, before commander and the rest of the CLI load.
 * Everything else, `--version` among other arguments included, goes through main.ts.
 */
import { VERSION } from "./commands/version.js";

const argv = process.argv.slice(2);
if (argv.length === 1 && argv[0] === "--version") {
  process.stdout.write(`${VERSION}\n`);
} else {
  await import("./main.js");
}
