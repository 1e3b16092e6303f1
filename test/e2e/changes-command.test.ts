/**
 * `petstore inventory changes`, end to end: the real binary against real servers. A run killed
 * (SIGKILL) between printing a page and saving its cursor, a follower seeing a change made on
 * another instance, interrupted by SIGINT and SIGTERM, and outliving a restart of its server.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { eventually } from "../support/eventually.js";
import { tempDir } from "../support/temp-dir.js";
import { BIN, assertBuilt } from "./support/binary.js";
import { runCli, runCliRecordingModules, spawnCli, type SpawnedCli } from "./support/cli.js";
import { HAS_SCRIPT, spawnCliInTty } from "./support/tty.js";
import {
  API_KEY,
  describeEachStore,
  POSTGRES_STORES,
  serverForBlock,
  startServer,
  type RunningServer,
  type SeedFileEntry,
} from "./support/servers.js";

const files = tempDir("petstore-changes-e2e-");
afterAll(() => {
  files.remove();
});

function pets(count: number): SeedFileEntry[] {
  return Array.from({ length: count }, (_, i) => ({
    petId: i + 1,
    name: `Pet ${i + 1}`,
    status: "available" as const,
    quantity: 10,
  }));
}

/** The --verbose trace's line for a request of the feed after `seq` (any attempt). */
function feedRequestLine(seq: number): RegExp {
  return new RegExp(`^\\* attempt \\d+: GET \\S+/inventory/changes\\?after=${seq}&\\S*wait=30$`);
}

/** The lines of a --verbose run's stderr that are not its HTTP trace (`*`, `>`, `<` lines). */
function besidesTrace(stderr: string): string {
  return stderr
    .split("\n")
    .filter((line) => !/^[*<>] /.test(line))
    .join("\n");
}

/** The seqs of the whole JSON lines in `text` (a last line cut short is left out). */
function seqsOf(text: string): number[] {
  const lines = text.split("\n").slice(0, -1);
  return lines.map((line) => (JSON.parse(line) as { seq: number }).seq);
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
}

async function patch(baseUrl: string, petId: number, quantity: number): Promise<void> {
  const response = await fetch(`${baseUrl}/inventory/${petId}`, {
    method: "PATCH",
    headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ quantity }),
  });
  expect(response.status).toBe(200);
  await response.arrayBuffer();
}

/** A follower's JSON lines so far. */
function followed(cli: SpawnedCli): { seq: number; petId: number; quantity: number }[] {
  return cli
    .stdout()
    .split("\n")
    .slice(0, -1)
    .map((line) => JSON.parse(line) as { seq: number; petId: number; quantity: number });
}

describe("inventory changes --cursor-file killed between printing and saving", () => {
  // 30 pages of 1,000 changes: about 4.5 MB of JSON Lines, far more than a pipe holds.
  const TOTAL = 30_000;
  const { env } = serverForBlock(pets(TOTAL));

  it("prints the unsaved changes again on the next run and skips none", async () => {
    assertBuilt();
    const cursor = join(files.dir, "killed.cursor");
    const child = spawn(
      process.execPath,
      [BIN, "inventory", "changes", "--cursor-file", cursor, "--json"],
      {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env() },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const chunks: Buffer[] = [];
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    // Read until the first cursor is saved, then stop reading: the pipe fills, and the CLI is
    // held in the middle of writing a later page, whose cursor it has not saved.
    let killed = false;
    child.stdout.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      if (!killed && existsSync(cursor)) child.stdout.pause();
    });
    const closed = once(child, "close");
    await eventually("the first saved cursor", () => existsSync(cursor));
    // Held by the full pipe, the CLI saves no further cursor: it is stuck printing a page.
    let lastSeen: string | undefined;
    await eventually(
      "the cursor to stay put (the CLI held by the full pipe)",
      () => {
        const now = readFileSync(cursor, "utf8");
        const still = now === lastSeen;
        lastSeen = now;
        return still;
      },
      { intervalMs: 300 },
    );
    expect(child.exitCode, `the CLI finished before it was killed; stderr:\n${stderr}`).toBeNull();
    child.kill("SIGKILL");
    killed = true;
    // What it wrote before it was killed is still in the pipe: read it to the end.
    child.stdout.resume();
    await closed;

    // The cursor as the killed run left it, read once it can no longer change.
    const saved = readFileSync(cursor, "utf8");
    expect(saved).toMatch(/^[0-9]+\n$/);
    const savedSeq = Number(saved.trim());
    // Beside it, the change at that seq (the restored-store check's).
    expect(readFileSync(`${cursor}.last-change`, "utf8")).toMatch(
      new RegExp(`^${savedSeq} pet [0-9]+ at \\S+\\n$`),
    );
    expect(savedSeq % 1000).toBe(0); // a page's last seq
    expect(savedSeq).toBeGreaterThanOrEqual(1000);
    const firstRun = seqsOf(Buffer.concat(chunks).toString("utf8"));
    // Every change up to the saved cursor was printed before it was saved, and the run had
    // printed past it when it was killed: the kill fell between printing and saving.
    expect(firstRun).toEqual(range(1, firstRun.length));
    expect(firstRun.length).toBeGreaterThan(savedSeq);
    expect(firstRun.length).toBeLessThan(TOTAL);

    const second = await runCli(["inventory", "changes", "--cursor-file", cursor, "--json"], {
      env: env(),
    });
    expect(second.code).toBe(0);
    expect(second.stderr).toBe("");
    // The next run starts right after the saved cursor: what the killed run printed past it
    // comes again, and nothing is missing up to the last change.
    expect(seqsOf(second.stdout)).toEqual(range(savedSeq + 1, TOTAL));
    expect(readFileSync(cursor, "utf8")).toBe(`${TOTAL}\n`);
    const printed = new Set([...firstRun, ...seqsOf(second.stdout)]);
    expect(printed.size).toBe(TOTAL);
    console.log(
      `changes: killed having printed ${firstRun.length} changes and saved seq ${savedSeq}; the next run printed ${TOTAL - savedSeq}, from seq ${savedSeq + 1}`,
    );
  }, 60_000);
});

describeEachStore(
  "inventory changes --follow with two instances on one database of %s",
  (store) => {
    const { server, env } = serverForBlock(pets(3), { store, instances: 2 });

    it("prints a change made through the other instance in the answer to the long poll waiting for it", async () => {
      const follower = spawnCli(["inventory", "changes", "--follow", "--json", "--verbose"], {
        env: env(server(0).url),
        timeoutMs: 30_000,
      });
      await eventually("the seed's changes", () => followed(follower).length === 3);
      // The follower's trace says when it has sent its long poll for what comes after seq 3.
      await eventually("the long poll after seq 3", () =>
        follower
          .stderr()
          .split("\n")
          .some((line) => feedRequestLine(3).test(line)),
      );
      await patch(server(1).url, 2, 77);
      // Shown long before that poll's 30 s are over: the bound is only for a failure.
      await eventually(
        "the change made on the other instance",
        () => followed(follower).length === 4,
        {
          timeoutMs: 5_000,
        },
      );
      expect(followed(follower)[3]).toMatchObject({ seq: 4, petId: 2, quantity: 77 });
      // It came in the answer to the poll that was waiting, not in one asked for after.
      const trace = follower.stderr().split("\n");
      const polls = trace.flatMap((line, index) => (feedRequestLine(3).test(line) ? [index] : []));
      expect(polls).toHaveLength(1);
      const answer = trace.slice((polls[0] ?? 0) + 1).find((line) => line.startsWith("< {"));
      expect(answer).toContain('"seq":4,');
      follower.process.kill("SIGINT");
      expect(await follower.exited).toBe(130);
    });
  },
  POSTGRES_STORES,
);

describe("inventory changes with a cursor this store did not hand out", () => {
  // Three pets: the seed's three changes, seqs 1 to 3.
  const { env } = serverForBlock(pets(3));

  it("refuses a cursor file past the store's latest change (another store's, or from before a restore): exit 2, the file kept", async () => {
    const cursor = join(files.dir, "restored.cursor");
    writeFileSync(cursor, "5000\n");
    for (const follow of [[], ["--follow"]]) {
      const result = await runCli(["inventory", "changes", "--cursor-file", cursor, ...follow], {
        env: env(),
      });
      expect(result).toEqual({
        code: 2,
        stdout: "",
        stderr:
          `error: the cursor file ${cursor} says seq 5000, past the store's latest change (seq 3): this store did not hand it out (another store's cursor, or one saved before the store was restored); nothing was printed\n` +
          `hint: if the store was restored from a backup and has taken no change since, go on from its latest: echo 3 > ${cursor} (what changed after the backup and before the restore is gone with it); if it has, write the backup's latest seq instead (docs/operating.md, step 4 of the restore); if the file is another store's, give this one its own\n`,
      });
      expect(readFileSync(cursor, "utf8")).toBe("5000\n");
    }
    // --after likewise; the latest itself is a cursor the store handed out: nothing new, exit 0.
    const ahead = await runCli(["inventory", "changes", "--after", "4"], { env: env() });
    expect(ahead.code).toBe(2);
    expect(ahead.stderr).toContain("error: --after 4 is past the store's latest change (seq 3)");
    expect(await runCli(["inventory", "changes", "--after", "3"], { env: env() })).toEqual({
      code: 0,
      stdout: "",
      stderr: "",
    });
  });
});

describe("inventory changes after the store was restored from a backup", () => {
  it("refuses its cursor once the restored store's new changes reuse its seq, skipping none silently: exit 2, the file kept", async () => {
    const db = join(files.dir, "restored.db");
    const backup = join(files.dir, "restored-backup.db");
    const cursor = join(files.dir, "restored-export.cursor");
    const cliEnv = (url: string) => ({ PETSTORE_BASE_URL: url, PETSTORE_API_KEY: API_KEY });
    // Day 1: the seed (seqs 1 to 3), a backup, two sales (4, 5), the nightly export.
    let server = await startServer({ seed: pets(3), dbPath: db });
    try {
      expect((await runCli(["db", "backup", "--db", db, backup])).code).toBe(0);
      await patch(server.url, 1, 9);
      await patch(server.url, 2, 9);
      const night = await runCli(["inventory", "changes", "--cursor-file", cursor, "--json"], {
        env: cliEnv(server.url),
      });
      expect(seqsOf(night.stdout)).toEqual([1, 2, 3, 4, 5]);
      expect(readFileSync(cursor, "utf8")).toBe("5\n");
      expect(readFileSync(`${cursor}.last-change`, "utf8")).toMatch(/^5 pet 2 at \S+Z\n$/);
    } finally {
      await server.stop();
    }
    // The disk fails; the store comes back from the backup (latest seq 3) and trades at once:
    // its new changes are handed seqs 4, 5 and 6 again.
    writeFileSync(db, readFileSync(backup));
    server = await startServer({ dbPath: db });
    try {
      await patch(server.url, 3, 1);
      await patch(server.url, 3, 2);
      await patch(server.url, 3, 3);
      const saved = readFileSync(cursor, "utf8");
      const next = await runCli(["inventory", "changes", "--cursor-file", cursor, "--json"], {
        env: cliEnv(server.url),
      });
      expect(next.code).toBe(2);
      expect(next.stdout).toBe("");
      expect(next.stderr).toMatch(
        new RegExp(
          `^error: the cursor file ${cursor.replaceAll(".", "\\.")} stops after the change at seq 5 \\(pet 2 at \\S+\\), but this store has another change there \\(pet 3 at \\S+\\): it was restored from a backup \\(or is another store\\), and the changes it made since would be skipped; nothing was printed\nhint: write into `,
        ),
      );
      expect(readFileSync(cursor, "utf8")).toBe(saved);
      // Told where the restored backup ended (seq 3), the export prints the new changes.
      writeFileSync(cursor, "3\n");
      const resumed = await runCli(["inventory", "changes", "--cursor-file", cursor, "--json"], {
        env: cliEnv(server.url),
      });
      expect(resumed.code).toBe(0);
      expect(seqsOf(resumed.stdout)).toEqual([4, 5, 6]);
      expect(readFileSync(cursor, "utf8")).toBe("6\n");
      expect(readFileSync(`${cursor}.last-change`, "utf8")).toMatch(/^6 pet 3 at \S+Z\n$/);
    } finally {
      await server.stop();
    }
  });
});

describe("inventory changes --follow interrupted", () => {
  const { env } = serverForBlock(pets(3));

  it.runIf(HAS_SCRIPT)(
    "at a terminal, Ctrl-C ends it with its message on a line of its own after the ^C",
    async () => {
      const follower = spawnCliInTty(["inventory", "changes", "--follow"], { env: env() });
      await follower.shows(/seed/);
      follower.type("\u0003");
      expect(await follower.exited).toBe(130);
      expect(follower.output()).toMatch(/\^C\nerror: interrupted by SIGINT: stopped following/);
    },
  );

  it.each([
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const)(
    "exits %s → %i at once while waiting, the cursor of what it printed saved",
    async (signal, code) => {
      const cursor = join(files.dir, `${signal}.cursor`);
      const follower = spawnCli(
        ["inventory", "changes", "--follow", "--cursor-file", cursor, "--verbose"],
        { env: env() },
      );
      await eventually("the seed's changes", () => follower.stdout().split("\n").length === 4);
      await eventually("the cursor", () => existsSync(cursor));
      // The follower's trace says when it has sent its long poll for what comes after seq 3.
      const trace = () => follower.stderr().split("\n");
      await eventually("the long poll after seq 3", () =>
        trace().some((line) => feedRequestLine(3).test(line)),
      );
      follower.process.kill(signal);
      expect(await follower.exited).toBe(code);
      // The long poll in flight is given up: the run ended without its answer, rather than
      // holding the exit for its 30 s.
      const poll = trace().findIndex((line) => feedRequestLine(3).test(line));
      expect(
        trace()
          .slice(poll + 1)
          .filter((line) => /^[<*] /.test(line)),
      ).toEqual([]);
      expect(besidesTrace(follower.stderr())).toBe(
        `error: interrupted by ${signal}: stopped following after 3 changes (up to seq 3)\n` +
          `hint: the cursor file ${cursor} holds seq 3: the same command goes on from there\n`,
      );
      expect(
        follower
          .stdout()
          .split("\n")
          .map((line) => line.split("\t")[0]),
      ).toEqual(["1", "2", "3", ""]);
      expect(readFileSync(cursor, "utf8")).toBe("3\n");
    },
  );
});

describe("inventory changes --follow through a restart of its server", () => {
  let server: RunningServer | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it("says once that the server went away, and goes on printing once it is back", async () => {
    const dbPath = join(files.dir, "restart.db");
    server = await startServer({ seed: pets(2), dbPath });
    const { url, port } = server;
    const env = { PETSTORE_BASE_URL: url, PETSTORE_API_KEY: API_KEY };
    const cursor = join(files.dir, "restart.cursor");
    const follower = spawnCli(
      ["inventory", "changes", "--follow", "--json", "--cursor-file", cursor],
      { env, timeoutMs: 60_000 },
    );
    await eventually("the seed's changes", () => followed(follower).length === 2);

    await server.stop();
    server = undefined;
    await follower.stderrContains("asking again until the server answers");
    expect(follower.process.exitCode).toBeNull();
    // The same file, the same port: the server is back where the follower looks for it.
    server = await startServer({ dbPath, args: ["--port", String(port)] });
    expect(server.url).toBe(url);
    await patch(server.url, 1, 42);
    await eventually("the change made after the restart", () => followed(follower).length === 3, {
      timeoutMs: 15_000,
    });
    expect(followed(follower).map((change) => [change.seq, change.petId, change.quantity])).toEqual(
      [
        [1, 1, 10],
        [2, 2, 10],
        [3, 1, 42],
      ],
    );
    await follower.stderrContains(
      "note: the server answers again; following the changes after seq 2",
    );
    expect(follower.stderr().match(/^warning: /gm)).toHaveLength(1);
    expect(follower.stderr()).toMatch(
      /^warning: cannot reach http:\/\/127\.0\.0\.1:[0-9]+\/v1\/inventory\/changes\?after=2&limit=1000&wait=30: connection refused \(ECONNREFUSED\); asking again until the server answers \(interrupt to stop\)\n/,
    );
    await eventually("the cursor of the last change", () => readFileSync(cursor, "utf8") === "3\n");
    follower.process.kill("SIGTERM");
    expect(await follower.exited).toBe(143);
  }, 60_000);
});

describe("what inventory changes loads", () => {
  const { env } = serverForBlock(pets(1));

  it("keeps the feed's code out of other commands, and loads it for changes", async () => {
    const get = await runCliRecordingModules(["inventory", "get", "1"], { env: env() });
    expect(get.code).toBe(0);
    const loaded = get.sources.join("\n");
    expect(loaded).not.toMatch(/^src\/feed\//m);
    expect(loaded).not.toMatch(/^src\/(?:commands\/inventory\/changes-run|output\/changes)\.ts$/m);
    const changes = await runCliRecordingModules(["inventory", "changes"], { env: env() });
    expect(changes).toMatchObject({ code: 0, stderr: "" });
    expect(changes.sources).toEqual(
      expect.arrayContaining(["src/feed/walk.ts", "src/output/changes.ts"]),
    );
    expect(changes.sources.join("\n")).not.toMatch(/^src\/server\//m);
  });
});
