// The first thing a new user runs: the bundled server with demo data on a
// throw-away database, then the CLI against it, then a clean stop.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const bin = join(root, "bin", "petstore.js");
const dir = mkdtempSync(join(tmpdir(), "petstore-demo-"));
const key = "demo-key";
const env = {
  ...process.env,
  PETSTORE_API_KEYS: key,
  PETSTORE_API_KEY: key,
  PETSTORE_LOG_LEVEL: "warn",
};

execFileSync(process.execPath, [join(root, "scripts", "build.js")], { stdio: "inherit" });

const server = spawn(process.execPath, [bin, "serve", "--demo", "--db", join(dir, "demo.db")], {
  env,
  stdio: ["ignore", "pipe", "inherit"],
});
const listening = await new Promise((resolve, reject) => {
  server.once("exit", (code) => reject(new Error(`petstore serve exited with ${code}`)));
  server.stdout.on("data", (chunk) => {
    const line = chunk.toString().trim();
    if (line.startsWith("listening on ")) resolve(line);
  });
});
console.log(`$ PETSTORE_API_KEYS=${key} petstore serve --demo   # ${listening}\n`);

let failed = false;
for (const args of [
  ["inventory", "list"],
  ["inventory", "set", "42", "7"],
  ["inventory", "list", "--status", "available", "--json"],
  ["pets", "get", "1"],
]) {
  console.log(`$ petstore --env local ${args.join(" ")}`);
  try {
    execFileSync(process.execPath, [bin, "--env", "local", ...args], { env, stdio: "inherit" });
  } catch {
    failed = true;
  }
  console.log();
}

server.kill("SIGTERM");
await new Promise((resolve) => server.once("exit", resolve));
rmSync(dir, { recursive: true, force: true });
console.log("Server stopped. Keep one running with:");
console.log("  PETSTORE_API_KEYS=my-key npx petstore serve --demo");
console.log("  PETSTORE_API_KEY=my-key npx petstore --env local inventory list");
process.exitCode = failed ? 1 : 0;
