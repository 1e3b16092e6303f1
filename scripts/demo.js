// The first thing a new user runs (`npm run demo`, after `npm run build`): the bundled server
// with demo data on a throw-away database, then the CLI against it, then a clean stop.
// `npm run demo -- --port N` uses another port when 4010 is taken (0 picks a free one).
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const DEFAULT_PORT = "4010";
const root = join(import.meta.dirname, "..");
const bin = join(root, "bin", "petstore.js");
const key = "demo-key";
const env = {
  ...process.env,
  PETSTORE_API_KEYS: key,
  PETSTORE_API_KEY: key,
  PETSTORE_LOG_LEVEL: "warn",
};

function usage(message) {
  console.error(`error: ${message}`);
  console.error("usage: npm run demo [-- --port N]   (N from 0 to 65535; 0 picks a free port)");
  process.exit(2);
}

let port;
try {
  ({
    values: { port = DEFAULT_PORT },
  } = parseArgs({ options: { port: { type: "string" } } }));
} catch (error) {
  usage(error.message);
}
if (!/^[0-9]{1,5}$/.test(port) || Number(port) > 65535) usage(`invalid --port "${port}"`);

/** Starts `petstore serve --demo`; resolves with its base URL, or rejects with what it printed. */
function startServer(dbPath) {
  const server = spawn(process.execPath, [bin, "serve", "--demo", "--port", port, "--db", dbPath], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  server.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  const listening = new Promise((resolve, reject) => {
    server.once("exit", () => {
      reject(new Error(stderr.trim() || "petstore serve stopped before it was listening"));
    });
    server.stdout.on("data", (chunk) => {
      const match = /^listening on (\S+)/m.exec(chunk.toString());
      if (match) resolve(match[1]);
    });
  });
  return { server, listening };
}

const dir = mkdtempSync(join(tmpdir(), "petstore-demo-"));
let server;
try {
  const started = startServer(join(dir, "demo.db"));
  server = started.server;
  let baseUrl;
  try {
    baseUrl = await started.listening;
  } catch (error) {
    console.error(error.message);
    if (error.message.includes("EADDRINUSE")) {
      console.error(
        `demo: port ${port} is taken; run the demo on another one: npm run demo -- --port 4011`,
      );
    }
    process.exitCode = 1;
  }
  if (baseUrl !== undefined) {
    // --env local means port 4010; any other port is named with --base-url.
    const target =
      new URL(baseUrl).port === DEFAULT_PORT ? ["--env", "local"] : ["--base-url", baseUrl];
    console.log(`$ PETSTORE_API_KEYS=${key} petstore serve --demo   # listening on ${baseUrl}\n`);
    // The CLI prints tables at a terminal and, piped (a log, CI, `| less`), tab-separated lines
    // without a header, as scripts want. History's eight columns, some empty, cannot be read
    // unnamed, so a piped demo shows it with --json, whose fields are named.
    const piped = !process.stdout.isTTY;
    let failed = false;
    for (const args of [
      ["inventory", "list"],
      ["inventory", "set", "42", "7", "--reason", "counted the shelf"],
      ["inventory", "history", "42", ...(piped ? ["--json"] : [])],
      ["inventory", "list", "--status", "available", "--json"],
      ["pets", "get", "1"],
    ]) {
      // Quoted as a shell needs it, so a line can be copied as it is.
      const shown = [...target, ...args].map((arg) => (/\s/.test(arg) ? `"${arg}"` : arg));
      console.log(`$ petstore ${shown.join(" ")}`);
      try {
        execFileSync(process.execPath, [bin, ...target, ...args], { env, stdio: "inherit" });
      } catch {
        failed = true;
      }
      console.log();
    }
    process.exitCode = failed ? 1 : 0;
  }
} finally {
  if (server !== undefined && server.exitCode === null && server.signalCode === null) {
    server.kill("SIGTERM");
    await new Promise((resolve) => server.once("exit", resolve));
  }
  rmSync(dir, { recursive: true, force: true });
}
if (process.exitCode === 0) {
  console.log("Server stopped. Keep one running with:");
  console.log("  PETSTORE_API_KEYS=my-key npx petstore serve --demo");
  console.log("  PETSTORE_API_KEY=my-key npx petstore --env local inventory list");
}
