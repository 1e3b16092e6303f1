/** Entry point of `petstore` (placeholder until the CLI issue: only `serve`). */
import { Command } from "commander";
import { serveCommand } from "./commands/serve.js";
import { CliError } from "./errors.js";

const program = new Command("petstore").addCommand(
  serveCommand({ env: process.env, stdout: process.stdout, stderr: process.stderr }),
);
try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CliError) {
    process.stderr.write(`error: ${error.message}\n`);
    if (error.hint) process.stderr.write(`hint: ${error.hint}\n`);
    process.exitCode = error.exitCode;
  } else {
    throw error;
  }
}
