/** `petstore serve`: parses the server's flags and hands them to the server's start function. */
import { Command, Option } from "commander";
import { wholeNumberOption } from "../program/arguments.js";

/** What `serve` needs from the process: its environment and output streams. */
export interface ServeIo {
  env: Readonly<Record<string, string | undefined>>;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** Flags of `petstore serve`, after parsing. */
export interface ServeOptions {
  host: string;
  port: number;
  db: string;
  seed?: string;
  demo?: boolean;
  apiKeysFile?: string;
  rateLimit: number;
}

const parsePort = wholeNumberOption("a port number", 0, 65535);
const parseRateLimit = wholeNumberOption("a whole number of requests per minute", 0, 999_999_999);

/** Builds the `serve` command; the server code is loaded only when it runs. */
export function serveCommand(io: ServeIo): Command {
  return new Command("serve")
    .description("start the bundled inventory server (SQLite-backed)")
    .addOption(new Option("--host <host>", "address to listen on").default("127.0.0.1"))
    .addOption(
      new Option("--port <port>", "port to listen on (0 picks a free one)")
        .argParser(parsePort)
        .default(4010),
    )
    .addOption(new Option("--db <file>", "SQLite database file").default("./petstore.db"))
    .option("--seed <file>", "load pets from a JSON array into an empty store")
    .option("--demo", "seed a small built-in set of pets into an empty store")
    .option("--api-keys-file <file>", "file of accepted API keys, one per line")
    .addOption(
      new Option("--rate-limit <n>", "requests per minute per client address (0: no limit)")
        .argParser(parseRateLimit)
        .default(0),
    )
    .addHelpText(
      "after",
      `
Accepted API keys come from PETSTORE_API_KEYS (comma-separated) and/or --api-keys-file.
The server refuses to start without at least one.

Examples:
  PETSTORE_API_KEYS=s3cret petstore serve --demo
  PETSTORE_API_KEYS=s3cret petstore serve --port 0 --db /var/lib/petstore/inventory.db
  petstore serve --api-keys-file /run/secrets/petstore-keys --seed pets.json`,
    )
    .action(async (options: ServeOptions) => {
      const { runServer } = await import("../server/start.js");
      await runServer(options, io);
    });
}
