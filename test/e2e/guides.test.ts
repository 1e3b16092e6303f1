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
 *
 * A guide's ```console tls transcripts run in a world of their own too, with `keys` and
 * `till-1.key` but no server: they make their certificates with openssl and start their own
 * servers. PETSTORE_BASE_URL is https://127.0.0.1:8443/v1 there, and the ports the guide
 * names (8443, 4010, 9464), in commands and in its ```nginx block, are free ones the world
 * picked (what the commands print has its ports normalised anyway). Before the first step of
 * a ```console tls nginx transcript, a real nginx (test/support/nginx.ts) starts serving the
 * guide's ```nginx block, its /etc/petstore/tls/ being the world's directory. Without openssl
 * or curl the TLS world is skipped, and without nginx its nginx transcripts are, each saying
 * why in its name. Whatever a step leaves running in the background (its process group) is
 * ended when its world stops.
 */
import { spawn, spawnSync } from "node:child_process";
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
import { eventually } from "../support/eventually.js";
import { nginxMissing, startNginx, type RunningNginx } from "../support/nginx.js";
import { tempDir } from "../support/temp-dir.js";
import { BIN, ROOT, assertBuilt } from "./support/binary.js";
import { HAS_SCRIPT } from "./support/tty.js";
import {
  createTestDatabase,
  routeUnavailable,
  skippedSuite,
  type TestDatabase,
} from "../support/postgres-database.js";
import { freePort } from "../support/free-port.js";

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
  /** The command a step runs, as the world runs it (the TLS world's ports are its own). */
  command(text: string): string;
  /** Called before the first step of each transcript. */
  begin(transcript: Transcript): Promise<void>;
  /** The process groups of steps that left something running in the background. */
  groups: Set<number>;
  stop(): Promise<void>;
}

/** A temporary working directory with a `petstore` on PATH, `keys` and `till-1.key`. */
function prepareDir(): { dir: string; remove: () => void; base: Record<string, string> } {
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
  return { dir, remove: temp.remove, base };
}

/**
 * A working directory with a `petstore` on PATH, a keys file, and a demo server on it: on
 * `petstore.db`, or on the PostgreSQL database `databaseUrl` names.
 */
async function startWorld(databaseUrl?: string): Promise<GuideWorld> {
  const { dir, remove, base } = prepareDir();
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
  const groups = new Set<number>();
  return {
    dir,
    env: { ...base, PETSTORE_BASE_URL: url, PETSTORE_API_KEY_FILE: join(dir, "till-1.key") },
    command: (text) => text,
    begin: () => Promise.resolve(),
    groups,
    async stop() {
      await endGroups(groups);
      if (server.exitCode === null && server.signalCode === null) {
        server.kill("SIGTERM");
        await once(server, "exit");
      }
      remove();
    },
  };
}

/** The ports the TLS world's transcripts and the guide's nginx block name. */
const TLS_GUIDE_PORTS = ["8443", "4010", "9464"] as const;

/** Where the guide's nginx block has the certificate and key: the TLS world's directory. */
const TLS_GUIDE_FILES = "/etc/petstore/tls/";

/** What the TLS world runs besides petstore and nginx, and why it cannot when one is missing. */
function tlsToolsMissing(): string | undefined {
  const missing = ["openssl", "curl"].filter(
    (tool) => spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0,
  );
  return missing.length === 0 ? undefined : `${missing.join(" and ")} not installed`;
}

/**
 * The world of `console tls` transcripts: a working directory with `keys` and `till-1.key`,
 * no server, each of the guide's ports taken as a free one, and PETSTORE_BASE_URL at the
 * HTTPS server the transcripts start (or nginx, later). `nginxSite` is the guide's nginx block,
 * served from the first `console tls nginx` transcript on.
 */
async function startTlsWorld(nginxSite: string | undefined): Promise<GuideWorld> {
  const { dir, remove, base } = prepareDir();
  const ports = new Map<string, string>();
  for (const port of TLS_GUIDE_PORTS) {
    let free = String(await freePort());
    while ([...ports.values()].includes(free)) free = String(await freePort());
    ports.set(port, free);
  }
  const guidePort = new RegExp(`\\b(${TLS_GUIDE_PORTS.join("|")})\\b`, "g");
  const portsOf = (text: string) => text.replace(guidePort, (port) => ports.get(port) ?? port);
  const groups = new Set<number>();
  let nginx: RunningNginx | undefined;
  return {
    dir,
    env: {
      ...base,
      PETSTORE_BASE_URL: `https://127.0.0.1:${ports.get("8443") ?? ""}/v1`,
      PETSTORE_API_KEY_FILE: join(dir, "till-1.key"),
    },
    command: portsOf,
    async begin(transcript) {
      if (!transcript.nginx || nginx !== undefined) return;
      if (nginxSite === undefined) {
        throw new Error("a console tls nginx transcript, but no nginx block in the guide");
      }
      const site = portsOf(nginxSite).replaceAll(TLS_GUIDE_FILES, `${dir}/`);
      const listen = /^\s*listen\s+(?:[\d.]+:)?(\d+)/m.exec(site)?.[1];
      if (listen === undefined) {
        throw new Error(`no listen port in the guide's nginx block:\n${site}`);
      }
      nginx = await startNginx(site, Number(listen));
    },
    groups,
    async stop() {
      await endGroups(groups);
      await nginx?.stop();
      remove();
    },
  };
}

/** Sends `signal` to process group `group`; false when no process is left in it. */
function signalGroup(group: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-group, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
    throw error;
  }
}

/**
 * Ends what the transcripts' steps left running (a server started with `&`): SIGTERM to each
 * group, SIGKILL to any still there after 5 s.
 */
async function endGroups(groups: Set<number>): Promise<void> {
  for (const group of groups) signalGroup(group, "SIGTERM");
  try {
    await eventually(
      "the transcripts' background processes to exit",
      () => [...groups].every((group) => !signalGroup(group, 0)),
      { timeoutMs: 5_000, intervalMs: 50 },
    );
  } catch {
    for (const group of groups) signalGroup(group, "SIGKILL");
  }
  groups.clear();
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
  const script = `exec 2>&1\n${world.command(step.command)}`;
  const typed = tty ? step.output.flatMap((line) => TYPED.exec(line)?.[2] ?? []) : [];
  const [command, args] = tty
    ? ["script", ["-qec", `stty cols 100 rows 50; sh -c ${shellQuote(script)}`, "/dev/null"]]
    : ["sh", ["-c", script]];
  const child = spawn(command, args, {
    cwd: world.dir,
    env: { ...world.env, ...(tty ? { TERM: "xterm-256color" } : {}) },
    // What is typed goes through `script` to the terminal the command reads, as keys do.
    stdio: [typed.length > 0 ? "pipe" : "ignore", "pipe", "pipe"],
    // A group of its own (`script` makes a session of its own anyway): what the command leaves
    // running in the background is ended with its world.
    detached: !tty,
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
  if (!tty && child.pid !== undefined && signalGroup(child.pid, 0)) world.groups.add(child.pid);
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

/**
 * Declares the tests that run `transcripts`, in order, in the world `start` makes; a transcript
 * for which `skipped` gives a reason is skipped, its steps' names saying why.
 */
function describeTranscripts(
  name: string,
  guide: string,
  transcripts: readonly Transcript[],
  start: () => Promise<GuideWorld>,
  skipped: (transcript: Transcript) => string | undefined = () => undefined,
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
      transcript.steps.map((step, index) => ({ step, transcript, first: index === 0 })),
    );
    it.skipIf(steps.length === 0)("has transcripts", () => {
      expect(steps.length).toBeGreaterThan(0);
    });
    for (const { step, transcript, first } of steps) {
      const why = skipped(transcript);
      const title = `line ${step.line}: $ ${step.command}`;
      if (why !== undefined) {
        it.skip(`${title} [skipped, ${why}]`, () => undefined);
        continue;
      }
      it.skipIf(transcript.tty && !HAS_SCRIPT)(title, async () => {
        if (world === undefined) throw new Error("no server");
        if (first) await world.begin(transcript);
        const { code, output } = await runStep(world, step, transcript.tty);
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
    blocks.transcripts.filter((transcript) => !transcript.pgbouncer && !transcript.tls),
    () => startWorld(),
  );

  const secure = blocks.transcripts.filter((transcript) => transcript.tls);
  const proxied = secure.some((transcript) => transcript.nginx);
  const toolsMissing = tlsToolsMissing();
  const noNginx = nginxMissing();
  if (secure.length > 0 && toolsMissing !== undefined) {
    process.stderr.write(`${guide}: its TLS transcripts are skipped: ${toolsMissing}\n`);
    describe.skip(`${guide}: its TLS transcripts: skipped, ${toolsMissing}`, () => {
      it("runs them", () => undefined);
    });
  } else if (secure.length > 0) {
    if (proxied && noNginx !== undefined) {
      process.stderr.write(`${guide}: its nginx transcripts are skipped: ${noNginx}\n`);
    }
    if (proxied) {
      describe(`${guide}: its nginx set-up`, () => {
        it("is one site: TLS on 8443, passing X-Forwarded-For to petstore on 127.0.0.1:4010", () => {
          expect(blocks.nginxFiles, "one nginx block").toHaveLength(1);
          const [site] = blocks.nginxFiles;
          expect(site).toMatch(/^\s*listen\s+8443\s+ssl;/m);
          expect(site).toMatch(/^\s*proxy_pass\s+http:\/\/127\.0\.0\.1:4010;/m);
          expect(site).toMatch(/X-Forwarded-For\s+\$proxy_add_x_forwarded_for;/);
        });
      });
    }
    describeTranscripts(
      `${guide}: its TLS transcripts, run`,
      guide,
      secure,
      () => startTlsWorld(blocks.nginxFiles[0]),
      (transcript) => (transcript.nginx ? noNginx : undefined),
    );
  }

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
