/**
 * `inventory count` end to end: the real binary against the real `petstore serve`. A session
 * typed at a terminal at scanner speed; a session killed mid-way and resumed; sales made by
 * other processes (through another instance, on PostgreSQL) while shelves are counted, every
 * one after a pet's first scan kept and none before it counted twice; a session posted twice;
 * a paper count sheet posted with apply --as-of.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { eventually } from "../support/eventually.js";
import { tempDir } from "../support/temp-dir.js";
import { runCli, spawnCli } from "./support/cli.js";
import { startFakeServer, replyJson } from "./support/fake-server.js";
import {
  API_KEY,
  describeEachStore,
  serverForBlock,
  startServer,
  type SeedFileEntry,
} from "./support/servers.js";
import { HAS_SCRIPT, spawnCliInTty } from "./support/tty.js";

const SEED: SeedFileEntry[] = Array.from({ length: 20 }, (_, i) => ({
  petId: i + 1,
  name: `Pet ${i + 1}`,
  status: i < 15 ? "available" : "sold",
  quantity: 10,
}));

const states = tempDir("petstore-count-e2e-");
afterAll(() => {
  states.remove();
});
let stateNumber = 0;

/** A new XDG_STATE_HOME: each test's sessions apart. */
function newState(): string {
  stateNumber += 1;
  return join(states.dir, `state-${stateNumber}`);
}

/** The session's journal entries, from the one journal under `state`. */
function journal(state: string, sessionId: string): { type: string }[] {
  const text = readFileSync(join(state, "petstore", "counts", `${sessionId}.jsonl`), "utf8");
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as { type: string });
}

function sessionIdIn(text: string): string {
  const id = /count session (\d{8}-\d{6}-[0-9a-f]{8})/.exec(text)?.[1];
  if (id === undefined) throw new Error(`no session id in:\n${text}`);
  return id;
}

async function quantities(env: Record<string, string>): Promise<Map<number, number>> {
  const listed = await runCli(["inventory", "list", "--json"], { env });
  expect(listed).toMatchObject({ code: 0, stderr: "" });
  const items = JSON.parse(listed.stdout) as { petId: number; quantity: number }[];
  return new Map(items.map((item) => [item.petId, item.quantity]));
}

describe.runIf(HAS_SCRIPT)("a counting session at a terminal", () => {
  const { env } = serverForBlock(SEED);

  it("takes 200 lines typed at once, none lost or merged, and posts what the review showed", async () => {
    const state = newState();
    const session = spawnCliInTty(["inventory", "count"], {
      env: { ...env(), XDG_STATE_HOME: state },
    });
    await session.shows("count> ");
    // Pets 1 to 10, twenty scans each, faster than any scanner: one write.
    const scans = Array.from({ length: 200 }, (_, i) => `${(i % 10) + 1}\r`).join("");
    session.type(`${scans}done\r`);
    await session.shows("Post 10 counts? [y/N]");
    session.type("y\r");
    expect(await session.exited).toBe(0);
    const output = session.output();
    const id = sessionIdIn(output);
    expect(journal(state, id).filter((entry) => entry.type === "add")).toHaveLength(200);
    expect(output).toContain("10 pets, 200 units counted, net variance +100, 10 pets off");
    const now = await quantities(env());
    for (let petId = 1; petId <= 20; petId += 1) {
      expect(now.get(petId)).toBe(petId <= 10 ? 20 : 10);
    }
    expect(journal(state, id).at(-1)).toMatchObject({ type: "posted" });
  });

  it("rings the bell for an unknown pet or a bad line, counting nothing; undo and ? answer", async () => {
    const state = newState();
    const session = spawnCliInTty(["inventory", "count"], {
      env: { ...env(), XDG_STATE_HOME: state },
    });
    await session.shows("count> ");
    session.type("999\r");
    await session.shows("pet 999: no such pet; nothing counted");
    session.type("cat\r");
    await session.shows('"cat" is not a line of a count');
    session.type("12 x4\r12 =3\rundo\r?\r");
    await session.shows("1 pet, 4 units counted, net variance -6, 1 pet off");
    expect(session.output()).toContain("\u0007");
    expect(session.output()).toContain("pet 12 (available): 4 counted; book 10 as of seq");
    session.type("done\r");
    await session.shows("Post 1 count? [y/N]");
    session.type("n\r");
    expect(await session.exited).toBe(0);
    expect(session.output()).toContain("not posted: session");
    expect((await quantities(env())).get(12)).toBe(10);
  });

  it("Ctrl-C leaves the session saved, and --resume goes on from where it was", async () => {
    const state = newState();
    const first = spawnCliInTty(["inventory", "count"], {
      env: { ...env(), XDG_STATE_HOME: state },
    });
    await first.shows("count> ");
    first.type("13 x2\r");
    await first.shows("pet 13 (available): 2 counted");
    first.type("\u0003");
    expect(await first.exited).toBe(130);
    const id = sessionIdIn(first.output());
    // On a line of its own, not after the prompt.
    expect(first.output()).toMatch(
      new RegExp(
        `\\nerror: interrupted by SIGINT: session ${id} saved, 1 pet counted, nothing posted\\n`,
      ),
    );
    const resumed = spawnCliInTty(["inventory", "count", "--resume"], {
      env: { ...env(), XDG_STATE_HOME: state },
    });
    await resumed.shows(`resuming session ${id}: 1 pet counted`);
    resumed.type("13\rdone\r");
    await resumed.shows("Post 1 count? [y/N]");
    resumed.type("y\r");
    expect(await resumed.exited).toBe(0);
    expect((await quantities(env())).get(13)).toBe(3);
  });

  it("shows the review on the terminal even when stdout goes to a file, before asking", async () => {
    const state = newState();
    const report = join(states.dir, "review-report.txt");
    const cli = spawnCliInTty(["inventory", "count"], {
      env: { ...env(), XDG_STATE_HOME: state },
      stdoutTo: report,
    });
    await cli.shows("count> ");
    cli.type("15 =4\rdone\r");
    await cli.shows("Post 1 count? [y/N]");
    // The review's table, with the pet and its count, came before the question.
    expect(cli.output()).toMatch(/15[^\n]*10[^\n]*4[\s\S]*Post 1 count\? \[y\/N\]/);
    cli.type("n\r");
    expect(await cli.exited).toBe(0);
    expect(readFileSync(report, "utf8")).toBe("");
  });

  it("Ctrl-C at the question to post: exit 130, nothing posted, the session saved", async () => {
    const state = newState();
    const cli = spawnCliInTty(["inventory", "count"], {
      env: { ...env(), XDG_STATE_HOME: state },
    });
    await cli.shows("count> ");
    cli.type("14 =4\rdone\r");
    await cli.shows("Post 1 count? [y/N]");
    cli.type("\u0003");
    expect(await cli.exited).toBe(130);
    const id = sessionIdIn(cli.output());
    expect(cli.output()).toContain(`session ${id} saved, 1 pet counted, nothing posted`);
    expect((await quantities(env())).get(14)).toBe(10);
  });
});

describe("a counting session from stdin", () => {
  const { env } = serverForBlock(SEED);

  it("needs --yes or --dry-run to post: exit 2 before reading anything", async () => {
    const state = newState();
    const result = await runCli(["inventory", "count"], {
      env: { ...env(), XDG_STATE_HOME: state },
      input: "1\ndone\n",
    });
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "error: not on a terminal, counts are posted only with --yes: nothing was read or posted\n" +
        "hint: add --yes to post the counts read from stdin, or --dry-run to see what they would do\n",
    });
  });

  it("killed with SIGKILL mid-way, resumes with nothing lost and nothing twice", async () => {
    const state = newState();
    const cli = spawnCli(["inventory", "count", "--yes"], {
      env: { ...env(), XDG_STATE_HOME: state },
      openStdin: true,
    });
    await cli.stderrContains("journal: ");
    const id = sessionIdIn(cli.stderr());
    cli.process.stdin.write(Array.from({ length: 100 }, (_, i) => `${(i % 5) + 1}\n`).join(""));
    await eventually("the 100 lines in the journal", () => {
      return journal(state, id).filter((entry) => entry.type === "add").length === 100;
    });
    cli.process.kill("SIGKILL");
    await cli.exited;
    expect((await quantities(env())).get(1)).toBe(10);
    const resumed = await runCli(["inventory", "count", "--resume", "--yes", "--json"], {
      env: { ...env(), XDG_STATE_HOME: state },
      input: `${Array.from({ length: 100 }, (_, i) => `${(i % 5) + 1}\n`).join("")}done\n`,
    });
    expect(resumed.code).toBe(0);
    const report = JSON.parse(resumed.stdout) as { changed: number };
    expect(report.changed).toBe(5);
    const now = await quantities(env());
    for (let petId = 1; petId <= 5; petId += 1) expect(now.get(petId)).toBe(40);

    // Posted once, the session posted again (resumed by its id) changes nothing.
    const again = await runCli(["inventory", "count", "--resume", id, "--yes", "--json"], {
      env: { ...env(), XDG_STATE_HOME: state },
      input: "done\n",
    });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ changed: 0, unchanged: 5, failed: 0 });
    expect((await quantities(env())).get(1)).toBe(40);
  });

  it("refuses the session to a second process while the first has it open (exit 2, nothing read); resumes once it ends", async () => {
    const state = newState();
    const first = spawnCli(["inventory", "count", "--yes"], {
      env: { ...env(), XDG_STATE_HOME: state },
      openStdin: true,
    });
    await first.stderrContains("journal: ");
    const id = sessionIdIn(first.stderr());
    first.process.stdin.write("1\n");
    await eventually("the line in the journal", () =>
      journal(state, id).some((entry) => entry.type === "add"),
    );
    for (const resume of [["--resume"], ["--resume", id]]) {
      const second = await runCli(["inventory", "count", ...resume, "--yes"], {
        env: { ...env(), XDG_STATE_HOME: state },
        input: "2\ndone\n",
      });
      expect(second.code).toBe(2);
      expect(second.stdout).toBe("");
      expect(second.stderr).toMatch(
        new RegExp(
          `^error: count session ${id} is open in another petstore \\(process ${first.process.pid} on this machine, since \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\): two at once would undo each other's lines; nothing was read or posted\nhint: finish it there `,
        ),
      );
    }
    expect(journal(state, id).filter((entry) => entry.type === "add")).toHaveLength(1);
    first.process.stdin.end("done\n");
    expect(await first.exited).toBe(0);
    const resumed = await runCli(["inventory", "count", "--resume", id, "--yes", "--json"], {
      env: { ...env(), XDG_STATE_HOME: state },
      input: "done\n",
    });
    expect(resumed.code).toBe(0);
    expect(readdirSync(join(state, "petstore", "counts"))).toEqual([`${id}.jsonl`]);
  });

  it("in a full stocktake counts the scope's pets not scanned as 0; a dry run changes nothing", async () => {
    const state = newState();
    // Pets 16 to 20 are sold (10 each on the books); 16 and 17 are found, the rest are not.
    const args = ["inventory", "count", "--full", "--status", "sold", "--json"];
    const dry = await runCli([...args, "--dry-run"], {
      env: { ...env(), XDG_STATE_HOME: state },
      input: "16 =10\n17 =4\ndone\n",
    });
    expect(dry.code).toBe(0);
    const evaluated = JSON.parse(dry.stdout) as {
      dryRun: boolean;
      wouldChange: number;
      results: { petId: number; outcome: string; counted: number; quantity: number }[];
    };
    expect(evaluated.dryRun).toBe(true);
    // A dry run's words for what each count would do, as apply's and adjust's dry runs say them.
    expect(
      evaluated.results.map(({ petId, outcome, counted, quantity }) => [
        petId,
        outcome,
        counted,
        quantity,
      ]),
    ).toEqual([
      [16, "unchanged", 10, 10],
      [17, "would_change", 4, 4],
      [18, "would_change", 0, 0],
      [19, "would_change", 0, 0],
      [20, "would_change", 0, 0],
    ]);
    expect((await quantities(env())).get(18)).toBe(10);
    const posted = await runCli([...args, "--yes"], {
      env: { ...env(), XDG_STATE_HOME: state },
      input: "16 =10\n17 =4\ndone\n",
    });
    expect(posted.code).toBe(0);
    expect(JSON.parse(posted.stdout)).toMatchObject({ changed: 4, unchanged: 1, failed: 0 });
    const now = await quantities(env());
    expect([16, 17, 18, 19, 20].map((petId) => now.get(petId))).toEqual([10, 4, 0, 0, 0]);
    expect(posted.stderr).toContain("a full stocktake of 5 pets (sold), as of seq");
  });

  it("with nothing counted, --json prints apply's report of nothing: exit 0, the session stays open", async () => {
    const empty = await runCli(["inventory", "apply", "-", "--format", "json", "--json"], {
      env: env(),
      input: "[]",
    });
    const emptyDryRun = await runCli(
      ["inventory", "apply", "-", "--format", "json", "--json", "--dry-run"],
      { env: env(), input: "[]" },
    );
    expect(JSON.parse(empty.stdout)).toEqual({
      changed: 0,
      unchanged: 0,
      failed: 0,
      notAttempted: 0,
      results: [],
    });
    for (const [flag, apply] of [
      ["--yes", empty],
      ["--dry-run", emptyDryRun],
    ] as const) {
      const state = newState();
      const counted = await runCli(["inventory", "count", flag, "--json"], {
        env: { ...env(), XDG_STATE_HOME: state },
        input: "done\n",
      });
      expect(counted.code).toBe(0);
      expect(counted.stdout).toBe(apply.stdout);
      const id = sessionIdIn(counted.stderr);
      expect(counted.stderr).toContain(
        `nothing counted: session ${id} stays open (petstore inventory count --resume ${id})\n`,
      );
      expect(journal(state, id).map((entry) => entry.type)).toEqual(["session"]);
    }
  });

  it("says where it cannot keep its sessions (a state directory under a file): exit 2, nothing read", async () => {
    const file = join(states.dir, "a-file");
    writeFileSync(file, "");
    for (const args of [["--yes"], ["--resume", "--yes"], ["--sessions"]]) {
      const result = await runCli(["inventory", "count", ...args], {
        env: { ...env(), XDG_STATE_HOME: file },
        input: "1\ndone\n",
      });
      expect(result).toEqual({
        code: 2,
        stdout: "",
        stderr:
          `error: cannot keep count sessions in ${join(file, "petstore", "counts")}: a part of the path is not a directory; nothing was read or posted\n` +
          "hint: sessions are kept under $XDG_STATE_HOME/petstore/counts (~/.local/state when it is not set): set XDG_STATE_HOME to a directory this user may write to\n",
      });
    }
  });

  it("from stdin, a line refused stops the post, as a bad row of apply's file: exit 2, nothing posted, the session open for the lines fixed", async () => {
    const state = newState();
    const before = (await quantities(env())).get(6);
    const result = await runCli(["inventory", "count", "--yes"], {
      env: { ...env(), XDG_STATE_HOME: state },
      input: "6 =3\nbogus\n999\ndone\n",
    });
    expect(result.code).toBe(2);
    const id = sessionIdIn(result.stderr);
    expect(result.stderr).toContain(
      'line 2: "bogus" is not a line of a count: a line is a petId (one more), ID xN (N more), ID =N (exactly N), undo, ? or done; nothing counted\n' +
        "line 3: pet 999: no such pet; nothing counted\n",
    );
    expect(result.stderr).toMatch(
      new RegExp(
        `error: 2 lines of the input were not counted \\(each is named above\\), so nothing was posted: session ${id} stays open with the other lines counted\nhint: fix those lines and give them to this session: petstore inventory count --resume ${id} --yes\n$`,
      ),
    );
    expect((await quantities(env())).get(6)).toBe(before);

    // The lines fixed, given to the same session: it posts what it counted, and them.
    const fixed = await runCli(["inventory", "count", "--resume", id, "--yes"], {
      env: { ...env(), XDG_STATE_HOME: state },
      input: "9 =4\ndone\n",
    });
    expect(fixed.code).toBe(0);
    const now = await quantities(env());
    expect([now.get(6), now.get(9)]).toEqual([3, 4]);
  });

  it("refuses a line that would count a pet past the largest quantity, as it is typed", async () => {
    const state = newState();
    const before = (await quantities(env())).get(12);
    const result = await runCli(["inventory", "count", "--yes"], {
      env: { ...env(), XDG_STATE_HOME: state },
      input: "12 =2147483647\n12\ndone\n",
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "line 2: pet 12 would be counted 2147483648, more than the 2147483647 a quantity can be; nothing counted\n",
    );
    expect((await quantities(env())).get(12)).toBe(before);
  });

  it("from stdin, a key the server refuses ends the run: exit 4, nothing posted, the session open", async () => {
    const state = newState();
    const before = await quantities(env());
    const result = await runCli(["inventory", "count", "--yes"], {
      env: { ...env(), XDG_STATE_HOME: state, PETSTORE_API_KEY: "not-a-key" },
      input: "7 =3\ndone\n",
    });
    expect(result.code).toBe(4);
    const id = sessionIdIn(result.stderr);
    expect(result.stderr).toContain(
      `line 1: pet 7: cannot read it; nothing posted: session ${id} stays open with the lines before this one counted (petstore inventory count --resume ${id})\nerror: invalid API key (unauthorized, HTTP 401)\n`,
    );
    expect(await quantities(env())).toEqual(before);
  });

  it("a posted session, resumed, counts no more lines: they would be dropped at the post", async () => {
    const state = newState();
    const first = await runCli(["inventory", "count", "--yes"], {
      env: { ...env(), XDG_STATE_HOME: state },
      input: "8 =5\ndone\n",
    });
    expect(first.code).toBe(0);
    const id = sessionIdIn(first.stderr);
    const again = await runCli(["inventory", "count", "--resume", id, "--yes"], {
      env: { ...env(), XDG_STATE_HOME: state },
      input: "8 =6\ndone\n",
    });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(
      `resuming session ${id} (posted already: its counts stand, and posting it again changes nothing): 1 pet counted\n` +
        `line 1: session ${id} was posted, so its counts stand: count again in a new session (petstore inventory count); nothing counted\n`,
    );
    expect(again.stderr).toContain(
      `error: 1 line of the input was not counted (each is named above): session ${id} was posted before\n`,
    );
    expect((await quantities(env())).get(8)).toBe(5);
  });

  it("a session is resumed only against the server it was counted on: exit 2, nothing read", async () => {
    const state = newState();
    const first = await runCli(["inventory", "count", "--dry-run"], {
      env: { ...env(), XDG_STATE_HOME: state },
      input: "9 =5\ndone\n",
    });
    const id = sessionIdIn(first.stderr);
    const fake = await startFakeServer((_request, response) => {
      replyJson(response, 500, "{}");
    });
    const elsewhere = await runCli(["inventory", "count", "--resume", id, "--yes"], {
      env: { ...env(), XDG_STATE_HOME: state, PETSTORE_BASE_URL: fake.url },
      input: "done\n",
    });
    await fake.stop();
    const counted = env().PETSTORE_BASE_URL ?? "";
    expect(elsewhere).toEqual({
      code: 2,
      stdout: "",
      stderr:
        `error: count session ${id} was counted on ${counted}, not on ${fake.url}: its books and seqs are that server's; nothing was read or posted\n` +
        `hint: resume it against that server: petstore inventory count --resume ${id} --base-url ${counted}\n`,
    });
    expect(fake.requests).toEqual([]);
  });

  it("resumes the session started last, to the millisecond, when two started in one second", async () => {
    const state = newState();
    const directory = join(state, "petstore", "counts");
    mkdirSync(directory, { recursive: true });
    const server = env().PETSTORE_BASE_URL ?? "";
    // The later one has the smaller random part: by id alone it would sort first.
    for (const [id, startedAt] of [
      ["20261127-150000-f000", "2026-11-27T15:00:00.100Z"],
      ["20261127-150000-0001", "2026-11-27T15:00:00.900Z"],
    ]) {
      writeFileSync(
        join(directory, `${id}.jsonl`),
        `${JSON.stringify({ type: "session", id, server, startedAt, full: false, status: null })}\n`,
      );
    }
    const listed = await runCli(["inventory", "count", "--sessions"], {
      env: { ...env(), XDG_STATE_HOME: state },
    });
    expect(listed.stdout.split("\n").map((line) => line.split("\t")[0])).toEqual([
      "20261127-150000-f000",
      "20261127-150000-0001",
      "",
    ]);
    const resumed = await runCli(["inventory", "count", "--resume", "--dry-run"], {
      env: { ...env(), XDG_STATE_HOME: state },
      input: "done\n",
    });
    expect(resumed.stderr).toContain(
      `note: resuming the latest of 2 open count sessions on ${server}; the other: 20261127-150000-f000 (petstore inventory count --resume ID)\n` +
        "resuming session 20261127-150000-0001: 0 pets counted\n",
    );
  });

  it("lists its sessions, open and posted", async () => {
    const state = newState();
    await runCli(["inventory", "count", "--yes"], {
      env: { ...env(), XDG_STATE_HOME: state },
      input: "16 =0\ndone\n",
    });
    const listed = await runCli(["inventory", "count", "--sessions"], {
      env: { ...env(), XDG_STATE_HOME: state },
    });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(
      /^\d{8}-\d{6}-[0-9a-f]{8}\tposted\t1\t\S+\thttp:\/\/127\.0\.0\.1:\d+\/v1\n$/,
    );

    // A file there that is not a session's journal is passed over, with a warning naming it.
    const stray = join(state, "petstore", "counts", "20200101-000000-0000.jsonl");
    writeFileSync(stray, "not json\n");
    // And one that cannot be read at all.
    const unreadable = join(state, "petstore", "counts", "20200101-000000-0001.jsonl");
    mkdirSync(unreadable);
    const withStray = await runCli(["inventory", "count", "--sessions"], {
      env: { ...env(), XDG_STATE_HOME: state },
    });
    expect(withStray).toMatchObject({ code: 0, stdout: listed.stdout });
    // The middle is JSON.parse's own words, which Node versions put differently.
    const [first, second, end] = withStray.stderr.split("\n");
    expect(first?.startsWith(`warning: passed over ${stray}:1: `)).toBe(true);
    expect(first?.endsWith(": not a count session's journal")).toBe(true);
    expect(second).toBe(
      `warning: passed over ${unreadable}: EISDIR: not a count session's journal`,
    );
    expect(end).toBe("");
  });
});

describeEachStore("sales while counting (%s)", (store) => {
  // On PostgreSQL the sales go through a second instance, as behind a load balancer.
  const instances = store === "sqlite" ? 1 : 2;
  const { server, env } = serverForBlock(SEED, { store, instances });

  it("keeps every sale after a pet's first scan, and counts none before it twice", async () => {
    const state = newState();
    const seller = env(server(instances - 1).url);
    const sell = (petId: number) =>
      runCli(["inventory", "adjust", String(petId), "-1"], { env: seller });
    // A sale before the count starts: the book the first scan reads is 9.
    for (const result of await Promise.all([1, 2, 3, 4, 5].map(sell))) expect(result.code).toBe(0);
    const cli = spawnCli(["inventory", "count", "--yes", "--json"], {
      env: { ...env(), XDG_STATE_HOME: state },
      openStdin: true,
    });
    await cli.stderrContains("journal: ");
    const id = sessionIdIn(cli.stderr());
    cli.process.stdin.write("1 =7\n2 =7\n3 =7\n4 =7\n5 =7\n");
    await eventually("the five first scans journaled", () => {
      return journal(state, id).filter((entry) => entry.type === "set").length === 5;
    });
    // Two sales of each pet after its first scan, in parallel processes.
    const sales = await Promise.all([1, 2, 3, 4, 5, 1, 2, 3, 4, 5].map(sell));
    for (const result of sales) expect(result.code).toBe(0);
    cli.process.stdin.end("done\n");
    expect(await cli.exited).toBe(0);
    const report = JSON.parse(cli.stdout()) as {
      results: {
        petId: number;
        book: number;
        since: number;
        counted: number;
        variance: number;
        quantity: number;
      }[];
    };
    expect(
      report.results.map(({ petId, book, since, counted, variance, quantity }) => ({
        petId,
        book,
        since,
        counted,
        variance,
        quantity,
      })),
    ).toEqual(
      [1, 2, 3, 4, 5].map((petId) => ({
        petId,
        book: 9,
        since: -2,
        counted: 7,
        variance: -2,
        quantity: 5,
      })),
    );
    const now = await quantities(env());
    for (let petId = 1; petId <= 5; petId += 1) expect(now.get(petId)).toBe(5);
  });
});

describe("a paper count sheet", () => {
  const { env } = serverForBlock(SEED);

  it("is headed by its seq; posted with apply --as-of, the sales since are kept, and posting it again changes nothing", async () => {
    const sheet = await runCli(["inventory", "count", "--sheet", "--csv", "--status", "sold"], {
      env: env(),
    });
    expect(sheet.code).toBe(0);
    const asOf = /--as-of (\d+)/.exec(sheet.stdout)?.[1];
    expect(asOf).toBeDefined();
    expect(sheet.stdout.split("\n").slice(2, 4)).toEqual([
      "petId,status,book,counted",
      "16,sold,10,",
    ]);
    const sold = await runCli(["inventory", "adjust", "17", "-3"], { env: env() });
    expect(sold.code).toBe(0);
    // Filled in: 16 counted 8, 17 counted 6, the rest not counted.
    const filled = sheet.stdout
      .replace("\n16,sold,10,\n", "\n16,sold,10,8\n")
      .replace("\n17,sold,10,\n", "\n17,sold,10,6\n");
    const path = join(states.dir, "sheet.csv");
    writeFileSync(path, filled);
    const posted = await runCli(["inventory", "apply", path, "--as-of", asOf ?? ""], {
      env: env(),
    });
    expect(posted.code).toBe(0);
    let now = await quantities(env());
    expect([now.get(16), now.get(17), now.get(18)]).toEqual([8, 3, 10]);
    const again = await runCli(["inventory", "apply", path, "--as-of", asOf ?? "", "--json"], {
      env: env(),
    });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ changed: 0, unchanged: 2 });
    now = await quantities(env());
    expect([now.get(16), now.get(17)]).toEqual([8, 3]);

    // One cell corrected (16: 7, not 8) and the sheet posted again: a count is applied once,
    // so nothing changes, and the note says so and how to correct it.
    writeFileSync(path, filled.replace("\n16,sold,10,8\n", "\n16,sold,10,7\n"));
    const corrected = await runCli(["inventory", "apply", path, "--as-of", asOf ?? ""], {
      env: env(),
    });
    expect(corrected.code).toBe(0);
    expect(corrected.stdout).toBe(`${path}: 0 changed, 2 unchanged (2 posted before), 0 failed\n`);
    expect(corrected.stderr).toBe(
      `note: 2 counts (pets 16, 17) were posted before as of seq ${asOf}: a count is applied once, so this run did not apply them again, whatever the file says now; if one was corrected since it was posted, add the difference: petstore inventory adjust PETID DELTA\n`,
    );
    now = await quantities(env());
    expect([now.get(16), now.get(17)]).toEqual([8, 3]);
  });

  it("posted as of a seq the store has not reached (a mistyped seq, another store's sheet): exit 6 naming the latest, nothing changed", async () => {
    const before = await quantities(env());
    const path = join(states.dir, "future-sheet.csv");
    writeFileSync(path, "petId,counted\n16,1\n17,2\n");
    const posted = await runCli(["inventory", "apply", path, "--as-of", "999999"], {
      env: env(),
    });
    expect(posted.code).toBe(6);
    expect(posted.stdout).toBe("");
    expect(posted.stderr).toMatch(
      /^error: changes\[0\]\.asOf 999999 is after the latest change \(seq \d+\): a count is as of a seq a read of the inventory gave \(Inventory-Seq\); nothing was changed \(invalid_body, HTTP 400\)\nhint: the server rejected the request as invalid: its message above says what it rejected\n$/,
    );
    expect(await quantities(env())).toEqual(before);
  });

  it("refuses a JSON row with a field it does not know: exit 2 naming it, nothing changed", async () => {
    const before = await quantities(env());
    const result = await runCli(["inventory", "apply", "-", "--format", "json", "--as-of", "1"], {
      env: env(),
      input: '[{"petId": 16, "quantity": 1}, {"petId": 17, "counted": 2}]',
    });
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "error: stdin has 2 problems:\n" +
        '  entry 2 (line 1): unknown field "counted" (allowed: petId, quantity, status)\n' +
        "  entry 2 (line 1): missing quantity\n" +
        "hint: fix the file and run again; nothing was applied\n",
    });
    expect(await quantities(env())).toEqual(before);
  });

  it("refuses --as-of with --force: exit 2, nothing sent, and the hint keeps --as-of", async () => {
    const result = await runCli(["inventory", "apply", "-", "--as-of", "1", "--force"], {
      env: env(),
      input: "petId,quantity\n1,1\n",
    });
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "error: --as-of posts counts, which the server reconciles with what moved since: not with --force\n" +
        "hint: leave --force out: a count is never conditional on the quantity read, so there is nothing to force\n",
    });
  });

  it("not atomic, a count below 0 fails alone: exit 7, and the hint says the others were posted", async () => {
    const sheet = await runCli(["inventory", "count", "--sheet", "--csv", "--status", "sold"], {
      env: env(),
    });
    const asOf = /--as-of (\d+)/.exec(sheet.stdout)?.[1] ?? "";
    expect((await runCli(["inventory", "adjust", "19", "-2"], { env: env() })).code).toBe(0);
    const path = join(states.dir, "below-zero.csv");
    // Pet 19 counted 1 as of the sheet, but 2 were sold since: below 0.
    writeFileSync(path, "petId,counted\n16,4\n19,1\n");
    const dryRun = await runCli(["inventory", "apply", path, "--as-of", asOf, "--dry-run"], {
      env: env(),
    });
    expect(dryRun.code).toBe(7);
    expect(dryRun.stderr).toBe(
      "error: dry run: 1 of 2 counts would fail; nothing was changed\nhint: the report says why each would fail\n",
    );
    const posted = await runCli(["inventory", "apply", path, "--as-of", asOf], { env: env() });
    expect(posted.code).toBe(7);
    expect(posted.stdout).toMatch(new RegExp(`^${path}: 1 changed, 0 unchanged, 1 failed\n`));
    expect(posted.stderr).toBe(
      "error: 1 of 2 counts not posted\nhint: fix the failed rows and post the file again: the counts posted now come back as posted before, so only the others apply\n",
    );
    expect((await quantities(env())).get(16)).toBe(4);
  });

  it("refuses a filled sheet posted without --as-of, which would undo the sales since: exit 2, nothing changed", async () => {
    const sheet = await runCli(["inventory", "count", "--sheet", "--csv", "--status", "sold"], {
      env: env(),
    });
    const asOf = /--as-of (\d+)/.exec(sheet.stdout)?.[1] ?? "";
    const path = join(states.dir, "filled-sheet.csv");
    writeFileSync(path, sheet.stdout.replace(/\n(1[6-9]),sold,(\d+),\n/g, "\n$1,sold,$2,$2\n"));
    expect((await runCli(["inventory", "adjust", "18", "-1"], { env: env() })).code).toBe(0);
    const before = await quantities(env());
    for (const [args, message, hint] of [
      [
        [],
        `${path} is a count sheet as of seq ${asOf}: set as they are, its counts would undo every sale made since it was printed; nothing was applied`,
        `post it as counts with petstore inventory apply ${path} --as-of ${asOf}: what was sold since is kept`,
      ],
      [
        ["--as-of", "1"],
        `${path} is a count sheet as of seq ${asOf} (its heading says so), not as of 1; nothing was applied`,
        `post it with petstore inventory apply ${path} --as-of ${asOf}: its books, and so its counts, are as of that seq`,
      ],
    ] as const) {
      const result = await runCli(["inventory", "apply", path, ...args], { env: env() });
      expect(result).toEqual({
        code: 2,
        stdout: "",
        stderr: `error: ${message}\nhint: ${hint}\n`,
      });
    }
    expect(await quantities(env())).toEqual(before);
    // Posted as its heading says, the sale of pet 18 since is kept.
    const posted = await runCli(["inventory", "apply", path, "--as-of", asOf], { env: env() });
    expect(posted.code).toBe(0);
    expect((await quantities(env())).get(18)).toBe(before.get(18));
  });
});

describe("a server that cannot take counts", () => {
  it("says so, counts nothing: exit 2, and the session stays", async () => {
    const fake = await startFakeServer((request, response) => {
      if (request.url === "/v1/inventory/1") {
        replyJson(response, 200, '{"petId":1,"quantity":3,"status":"available"}');
        return;
      }
      replyJson(response, 404, '{"code":"not_found","message":"no route"}');
    });
    try {
      const state = newState();
      const result = await runCli(["inventory", "count", "--yes"], {
        env: { PETSTORE_BASE_URL: fake.url, PETSTORE_API_KEY: API_KEY, XDG_STATE_HOME: state },
        input: "1\ndone\n",
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("no Inventory-Seq header");
    } finally {
      await fake.stop();
    }
  });
});

describe("a counting session across a restore of the store from a backup", () => {
  it("refuses to count on or post once the restored store's new changes reuse the seqs its pets were read as of: exit 2, nothing posted", async () => {
    const db = join(states.dir, "restored.db");
    const backup = join(states.dir, "restored-backup.db");
    const state = newState();
    const cliEnv = (url: string) => ({
      PETSTORE_BASE_URL: url,
      PETSTORE_API_KEY: API_KEY,
      XDG_STATE_HOME: state,
    });
    // The seed (seqs 1 to 3), a backup, two sales (4, 5); pet 1 counted as of seq 5, not posted.
    let server = await startServer({ seed: SEED.slice(0, 3), dbPath: db });
    let id: string;
    try {
      expect((await runCli(["db", "backup", "--db", db, backup])).code).toBe(0);
      for (const [pet, quantity] of [
        [1, 9],
        [2, 9],
      ] as const) {
        const sold = await runCli(["inventory", "set", String(pet), String(quantity)], {
          env: cliEnv(server.url),
        });
        expect(sold.code).toBe(0);
      }
      const counted = await runCli(["inventory", "count", "--dry-run"], {
        env: cliEnv(server.url),
        input: "1 =7\ndone\n",
      });
      expect(counted.code).toBe(0);
      id = sessionIdIn(counted.stderr);
      expect(journal(state, id)).toContainEqual(
        expect.objectContaining({ type: "seen", seq: "5", petId: "2" }),
      );
    } finally {
      await server.stop();
    }
    // The disk fails; the store comes back from the backup (latest seq 3) and trades at once:
    // its new changes are handed seqs 4, 5 and 6 again.
    // At the same address: the session is its server's (its base URL).
    writeFileSync(db, readFileSync(backup));
    server = await startServer({ dbPath: db, args: ["--port", String(server.port)] });
    try {
      const set3 = async (quantity: number) => {
        const set = await runCli(["inventory", "set", "3", String(quantity)], {
          env: cliEnv(server.url),
        });
        expect(set.code).toBe(0);
      };
      const refusal = (instead: string) =>
        new RegExp(
          `^error: count session ${id} read its pets as of the changes up to seq 5 \\(pet 2 at \\S+\\), but the store ${instead}: it was restored from a backup since \\(or is another store\\), and these counts would be taken against changes it no longer holds; nothing was posted\nhint: count those pets again in a new session \\(petstore inventory count, with the same --full or --status for a stocktake\\); this one stays open as it was saved: to drop it, delete its journal ${join(state, "petstore", "counts", `${id}.jsonl`).replaceAll(".", "\\.")}\n`,
          "m",
        );
      const resume = (input: string) =>
        runCli(["inventory", "count", "--resume", id, "--yes"], { env: cliEnv(server.url), input });
      // One sale (seq 4): resumed, the session finds no change at seq 5, before reading a line.
      await set3(1);
      const before = await quantities(cliEnv(server.url));
      const early = await resume("2 =4\ndone\n");
      expect(early.code).toBe(2);
      expect(early.stderr).toMatch(refusal("holds no change at that seq"));
      // Two more (seqs 5 and 6): seq 5 is another change now; posting is refused as well.
      await set3(2);
      await set3(3);
      const post = await resume("done\n");
      expect(post.code).toBe(2);
      expect(post.stderr).toMatch(refusal("has another change there \\(pet 3 at \\S+\\)"));
      expect((await quantities(cliEnv(server.url))).get(1)).toBe(before.get(1));
      expect(journal(state, id).map((entry) => entry.type)).toEqual(["session", "seen", "set"]);
      // A new session, read as of the restored store's changes, posts.
      const recount = await runCli(["inventory", "count", "--yes"], {
        env: cliEnv(server.url),
        input: "1 =7\ndone\n",
      });
      expect(recount.code).toBe(0);
      expect((await quantities(cliEnv(server.url))).get(1)).toBe(7);
    } finally {
      await server.stop();
    }
  });
});

describe.runIf(HAS_SCRIPT)(
  "a counting session at a terminal, the store restored while it asks",
  () => {
    it("checks the store again after the question to post is answered: exit 2, nothing posted", async () => {
      const db = join(states.dir, "asked.db");
      const backup = join(states.dir, "asked-backup.db");
      const state = newState();
      let server = await startServer({ seed: SEED.slice(0, 3), dbPath: db });
      const env = () => ({
        PETSTORE_BASE_URL: server.url,
        PETSTORE_API_KEY: API_KEY,
        XDG_STATE_HOME: state,
      });
      expect((await runCli(["db", "backup", "--db", db, backup])).code).toBe(0);
      expect((await runCli(["inventory", "set", "2", "9"], { env: env() })).code).toBe(0);
      // Pet 1 counted as of seq 4 (the sale of pet 2); the question waits.
      const cli = spawnCliInTty(["inventory", "count"], { env: env(), timeoutMs: 30_000 });
      try {
        await cli.shows("count> ");
        cli.type("1 =7\r");
        await cli.shows("pet 1 (available): 7 counted");
        cli.type("done\r");
        await cli.shows("Post 1 count? [y/N]");
        // Meanwhile the store comes back from the backup (latest seq 3) and trades: seq 4 again.
        const port = server.port;
        await server.stop();
        writeFileSync(db, readFileSync(backup));
        server = await startServer({ dbPath: db, args: ["--port", String(port)] });
        expect((await runCli(["inventory", "set", "3", "1"], { env: env() })).code).toBe(0);
        cli.type("y\r");
        expect(await cli.exited).toBe(2);
        expect(cli.output()).toContain("but the store has another change there (pet 3 at ");
        expect((await quantities(env())).get(1)).toBe(10);
      } finally {
        await server.stop();
      }
    });
  },
);
