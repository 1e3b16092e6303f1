/**
 * `petstore serve`: parses the server's flags and hands them to the server's start function
 * (its start-up failures are OperatorErrors, which src/program/exit.ts maps to exit codes).
 */
import { Command, Option } from "commander";
import { wholeNumberOption } from "../program/arguments.js";
import type { Factory } from "../program/factory.js";
import { readGlobalOptions } from "../program/global-options.js";
import type { ServeOptions } from "../server/start.js";

const parsePort = wholeNumberOption("a port number", 0, 65535);
const parseMetricsPort = wholeNumberOption("a port number", 0, 65535);
const parseRateLimit = wholeNumberOption("a whole number of requests per minute", 0, 999_999_999);

/** Builds the `serve` command; the server code is loaded only when it runs. */
export function serveCommand(factory: Factory): Command {
  return new Command("serve")
    .description("start the bundled inventory server (SQLite, or PostgreSQL for many instances)")
    .addOption(new Option("--host <host>", "address to listen on").default("127.0.0.1"))
    .addOption(
      new Option("--port <port>", "port to listen on (0 picks a free one)")
        .argParser(parsePort)
        .default(4010),
    )
    .addOption(new Option("--db <file>", 'SQLite database file (default: "./petstore.db")'))
    .option("--seed <file>", "load pets from a JSON array into an empty store")
    .option("--demo", "seed a small built-in set of pets into an empty store")
    .option(
      "--api-keys-file <file>",
      'accepted API keys: lines "<name> <scope> sha256:<hex>" (from petstore keys create)',
    )
    .addOption(
      new Option("--rate-limit <n>", "requests per minute per client address (0: no limit)")
        .argParser(parseRateLimit)
        .default(0),
    )
    .addOption(
      new Option(
        "--metrics-port <port>",
        "serve GET /metrics (Prometheus) on this port, apart from the API (default: off)",
      ).argParser(parseMetricsPort),
    )
    .addOption(
      new Option("--metrics-host <host>", "address of the metrics listener").default("127.0.0.1"),
    )
    .option(
      "--tls-cert <file>",
      "serve HTTPS with this certificate, PEM (a chain in it is served whole)",
    )
    .option("--tls-key <file>", "the certificate's private key, PEM (with --tls-cert)")
    .option(
      "--trust-proxy <addresses>",
      "reverse proxies (IP addresses, CIDR ranges, comma-separated) whose X-Forwarded-For names the client (default: none)",
    )
    .addHelpText(
      "after",
      `
Accepted API keys come from --api-keys-file and/or PETSTORE_API_KEYS (comma-separated, each a
write key). A keys-file line is "<name> <scope> sha256:<hex>", as petstore keys create prints it:
scope read may only GET, write may do everything; # starts a comment; a bare key on a line is a
write key named key-N. A line it cannot use is exit 2 naming it. The server refuses to start
without at least one key. SIGHUP reads the keys file again (check it first with petstore keys
check FILE): a valid file holds from the next request, a bad one is refused and the old keys
stay. SIGTERM or SIGINT: /readyz answers 503 at once, requests in flight finish, exit 0.
With --tls-cert and --tls-key the API is HTTPS ("listening on https://…"); SIGHUP reads the
pair again too (a renewal hook sends it): a valid pair serves new connections, open ones finish
on the old, a bad one is refused and the old stays. Without TLS on an address beyond loopback,
the log warns that keys cross the network in clear.
Probes, without a key: GET /livez (the process runs), GET /readyz and /healthz (ready: the
store answers within 1 s, keys are loaded, not shutting down).
PETSTORE_DATABASE_URL=postgres://… keeps everything in PostgreSQL instead of a SQLite file,
so several instances can serve one database (not together with --db).
The log is one JSON object a line on stderr (PETSTORE_LOG_LEVEL: info by default); stdout
carries only the "listening on" (and "metrics on") line. Under systemd (JOURNAL_STREAM) each line starts with its
syslog priority, so journalctl -p err finds the errors. Behind a reverse proxy, --trust-proxy
names it: a request from it is logged and rate-limited as the client its X-Forwarded-For
names; from any other address, as the connection's own.

Examples:
  PETSTORE_API_KEYS=s3cret petstore serve --demo
  PETSTORE_API_KEYS=s3cret petstore serve --port 0 --db /var/lib/petstore/inventory.db
  petstore serve --api-keys-file /etc/petstore/keys --metrics-port 9464
  petstore serve --api-keys-file /etc/petstore/keys --seed pets.json
  petstore serve --api-keys-file keys --host 0.0.0.0 --tls-cert cert.pem --tls-key key.pem
  petstore serve --api-keys-file /etc/petstore/keys --trust-proxy 127.0.0.1,::1 2>>petstore.log
  PETSTORE_DATABASE_URL=postgres://petstore@db.internal/petstore petstore serve --host 0.0.0.0`,
    )
    .action(async (options: ServeOptions, command: Command) => {
      const { io, env } = factory.context(readGlobalOptions(command));
      const { runServer } = await import("../server/start.js");
      // The server writes its "listening on" line to stdout and its log to stderr itself.
      await runServer(options, { env, stdout: io.out, stderr: io.err });
    });
}
