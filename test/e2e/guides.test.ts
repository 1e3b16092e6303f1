/**
 * The guides cannot go stale: every ```console transcript in README.md and docs/*.md runs,
 * command by command, against the real program and a real `petstore serve --demo`, and prints
 * what the guide says it prints (times, ids and ports aside: test/docs/transcripts.ts); every
 * other line of a code block that runs `petstore` is a command line the program accepts.
 *
 * Each guide gets its own server and working directory, which its transcripts share in the
 * order they come: `petstore.db` (the server's file), `keys` (its keys file, with one key,
 * till-1, whose key is in `till-1.key`), `petstore.pid` (its process id). The commands see
 * PETSTORE_BASE_URL and PETSTORE_API_KEY_FILE set to that server and key, as a set-up shell
 * would, and TZ=UTC. A guide's ```console pgbouncer transcripts run in a world of their own:
 * the same, but the server's store is a PostgreSQL database reached through the run's
 * PgBouncer in transaction mode, which must be set up as the guide's ```ini block says.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CommanderError } from "commander";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commandReached, petstoreWords } from "../program/real-program.js";
import {
  matchesTranscript,
  normalized,
  readGuide,
  type Transcript,
  type TranscriptStep,
} from "../docs/transcripts.js";
import { tempDir } from "../support/temp-dir.js";
import { BIN, ROOT, assertBuilt } from "./support/binary.js";
import { HAS_SCRIPT } from "./support/tty.js";
import {
  createTestDatabase,
  routeUnavailable,
  skippedSuite,
  type TestDatabase,
} from "../support/postgres-database.js";

const GUIDES = [
  "README.md",
  "docs/staff.md",
  "docs/scripts.md",
  "docs/cron.md",
  "docs/operating.md",
];

interface GuideWorld {
  dir: string;
  env: Record<string, string>;
  server: ChildProcess;
  stop(): Promise<void>;
}

/**
 * A working directory with a `petstore` on PATH, a keys file, and a demo server on it: on
 * `petstore.db`, or on the PostgreSQL database `databaseUrl` names.
 */
async function startWorld(databaseUrl?: string): Promise<GuideWorld> {
  assertBuilt();
  const temp = tempDir("petstore-guide-");
  const dir = temp.dir;
  const bin = join(dir, ".bin");
  spawnSync("mkdir", [bin]);
  writeFileSync(join(bin, "petstore"), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(join(bin, "petstore"), 0o755);
  const base = {
    PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`,
    HOME: dir,
    TMPDIR: process.env.TMPDIR ?? "/tmp",
    TZ: "UTC",
    LANG: "C.UTF-8",
    NO_COLOR: "1",
  };
  const created = spawnSync(process.execPath, [BIN, "keys", "create", "till-1"], {
    cwd: dir,
    env: base,
  });
  writeFileSync(join(dir, "till-1.key"), created.stdout);
  writeFileSync(join(dir, "keys"), created.stderr);
  const store = databaseUrl === undefined ? ["--db", "petstore.db"] : [];
  const server = spawn(
    process.execPath,
    [BIN, "serve", "--demo", ...store, "--api-keys-file", "keys", "--port", "0"],
    {
      cwd: dir,
      env: databaseUrl === undefined ? base : { ...base, PETSTORE_DATABASE_URL: databaseUrl },
      stdio: ["ignore", "pipe", "ignore"],
    },
  );
  let out = "";
  const url = await new Promise<string>((resolve, reject) => {
    server.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /^listening on (\S+)$/m.exec(out);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    server.once("exit", (code) => {
      reject(new Error(`the guide's server exited with ${String(code)}`));
    });
  });
  writeFileSync(join(dir, "petstore.pid"), `${server.pid ?? ""}\n`);
  return {
    dir,
    server,
    env: { ...base, PETSTORE_BASE_URL: url, PETSTORE_API_KEY_FILE: join(dir, "till-1.key") },
    async stop() {
      if (server.exitCode === null && server.signalCode === null) {
        server.kill("SIGTERM");
        await once(server, "exit");
      }
      temp.remove();
    },
  };
}

/**
 * What a person types in a session a `console tty` transcript shows: the text after a prompt
 * (`count> 42`, `Post 2 counts? [y/N] y`), in order.
 */
const TYPED = /^(count> |Post \d+ counts?\? \[y\/N\] )(.+)$/;

/** The prompts of an interactive session, as a terminal shows them (each marks a line to type). */
const PROMPT = /count> |\[y\/N\] /g;

/** Runs one transcript command under /bin/sh, stdout and stderr in one stream as on a terminal. */
async function runStep(
  world: GuideWorld,
  step: TranscriptStep,
  tty: boolean,
): Promise<{ code: number | null; output: string }> {
  const script = `exec 2>&1\n${step.command}`;
  const typed = tty ? step.output.flatMap((line) => TYPED.exec(line)?.[2] ?? []) : [];
  const [command, args] = tty
    ? ["script", ["-qec", `stty cols 100 rows 50; sh -c ${shellQuote(script)}`, "/dev/null"]]
    : ["sh", ["-c", script]];
  const child = spawn(command, args, {
    cwd: world.dir,
    env: { ...world.env, ...(tty ? { TERM: "xterm-256color" } : {}) },
    // What is typed goes through `script` to the terminal the command reads, as keys do.
    stdio: [typed.length > 0 ? "pipe" : "ignore", "pipe", "pipe"],
  });
  let output = "";
  let next = 0;
  const received = (chunk: Buffer) => {
    output += chunk.toString();
    // Each line is typed once the terminal shows the prompt it answers.
    const prompts = plain(output).match(PROMPT)?.length ?? 0;
    while (next < typed.length && next < prompts) {
      child.stdin?.write(`${typed[next] ?? ""}\r`);
      next += 1;
    }
  };
  child.stdout?.on("data", received);
  child.stderr?.on("data", received);
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  const [code] = (await once(child, "close")) as [number | null];
  clearTimeout(timer);
  const text = output.replaceAll("\r\n", "\n");
  return { code, output: typed.length > 0 ? plain(text) : text };
}

/**
 * What a person reads of an interactive session: without the escape sequences readline moves
 * the cursor with, and the line it redraws after Enter.
 */
function plain(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex -- the escape sequences are what it removes
      .replace(/\u001b(\[[0-9;?]*[A-Za-z]|[78=>])/g, "")
      .replace(/\r/g, "")
  );
}

/** Parses a command line with the real program: it reaches a command, or asks for help or the version. */
async function acceptedByProgram(argv: readonly string[]): Promise<void> {
  try {
    await commandReached(argv);
  } catch (error) {
    const code = error instanceof CommanderError ? error.code : "";
    if (code !== "commander.version" && code !== "commander.helpDisplayed") throw error;
  }
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

function linesOf(text: string): string[] {
  const lines = normalized(text).split("\n");
  while (lines.at(-1) === "") lines.pop();
  return lines;
}

/** The settings of an `ini` file's text, by name (sections ignored). */
function iniSettings(text: string): Map<string, string> {
  const settings = new Map<string, string>();
  for (const line of text.split("\n")) {
    const setting = /^\s*([\w.*]+)\s*=\s*(.*?)\s*$/.exec(line);
    if (setting?.[1] !== undefined) settings.set(setting[1], setting[2] ?? "");
  }
  return settings;
}

/** Declares the tests that run `transcripts`, in order, in the world `start` makes. */
function describeTranscripts(
  name: string,
  guide: string,
  transcripts: readonly Transcript[],
  start: () => Promise<GuideWorld>,
): void {
  describe(name, () => {
    let world: GuideWorld | undefined;
    beforeAll(async () => {
      if (transcripts.length > 0) world = await start();
    });
    afterAll(async () => {
      await world?.stop();
    });

    const steps = transcripts.flatMap((transcript) =>
      transcript.steps.map((step) => ({ step, tty: transcript.tty })),
    );
    it.skipIf(steps.length === 0)("has transcripts", () => {
      expect(steps.length).toBeGreaterThan(0);
    });
    for (const { step, tty } of steps) {
      it.skipIf(tty && !HAS_SCRIPT)(`line ${step.line}: $ ${step.command}`, async () => {
        if (world === undefined) throw new Error("no server");
        const { code, output } = await runStep(world, step, tty);
        const expected = step.output.map((line) => normalized(line));
        const actual = linesOf(output);
        if (!matchesTranscript(expected, actual)) {
          expect(actual.join("\n"), `${guide}:${step.line}`).toBe(expected.join("\n"));
        }
        expect(code, `${guide}:${step.line}: exit status\n${output}`).toBe(step.exit);
      });
    }
  });
}

for (const guide of GUIDES.filter((file) => existsSync(join(ROOT, file)))) {
  const blocks = readGuide(readFileSync(join(ROOT, guide), "utf8"));

  describeTranscripts(
    `${guide}: its transcripts, run`,
    guide,
    blocks.transcripts.filter((transcript) => !transcript.pgbouncer),
    () => startWorld(),
  );

  const pooled = blocks.transcripts.filter((transcript) => transcript.pgbouncer);
  const missing = routeUnavailable("pgbouncer-transaction");
  if (pooled.length > 0 && missing !== undefined) {
    skippedSuite(`${guide}: its PgBouncer transcripts: skipped, ${missing}`);
  } else if (pooled.length > 0) {
    describe(`${guide}: its PgBouncer set-up`, () => {
      it("is the run's PgBouncer's: transaction mode, SCRAM, no ignore_startup_parameters", () => {
        const [ini, ...more] = blocks.iniFiles;
        expect(more, "one ini block").toEqual([]);
        const settings = iniSettings(ini ?? "");
        expect(settings.get("pool_mode")).toBe("transaction");
        expect(settings.get("auth_type")).toBe("scram-sha-256");
        expect(settings.has("ignore_startup_parameters")).toBe(false);
      });
    });
    let database: TestDatabase | undefined;
    afterAll(async () => {
      await database?.drop();
    });
    describeTranscripts(
      `${guide}: its transcripts through PgBouncer (transaction mode), run`,
      guide,
      pooled,
      async () => {
        database = await createTestDatabase("pgbouncer-transaction");
        return startWorld(database.url);
      },
    );
  }

  describe(`${guide}: its other command lines`, () => {
    it
      .skipIf(blocks.commandLines.length === 0)
      .each(blocks.commandLines.map((entry) => [entry.line, entry.text] as const))(
      "line %i: %s",
      async (_line, text) => {
        const words = petstoreWords(text);
        expect(words[0]).toBe("petstore");
        await acceptedByProgram(words.slice(1));
      },
    );
  });
}
