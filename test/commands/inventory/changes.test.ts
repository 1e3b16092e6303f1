import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { localTime } from "../../../src/text/local-time.js";
import { Interrupts } from "../../../src/program/interrupts.js";
import { startStubServer } from "../../support/http-stubs.js";
import { tempDir } from "../../support/temp-dir.js";
import { BASE_URL, CONFIGURED_ENV, HttpStubs, json, ORIGIN, runFake } from "../fake-deps.js";

const MAX_ID = "9223372036854775807";

/** A second server, which goes away and comes back. */
const OUTAGE = await startStubServer();
afterAll(OUTAGE.close);

/** Stubs answered by OUTAGE. */
const AT_OUTAGE = { origin: OUTAGE.origin };

/**
 * `changes --follow --limit 2 --cursor-file cursor` against OUTAGE, which answers its first
 * page (seq 1) and then goes away (refused: the call and its two retries), and is back after
 * the follower's next pause; `stubs` hold what it answers once back.
 */
async function followThroughOutage(stubs: HttpStubs, cursor: string) {
  stubs
    .on("GET", "/v1/inventory/changes?after=0&limit=2&wait=30", AT_OUTAGE)
    .reply(200, page(1, 1), json);
  return runFake(["inventory", "changes", "--follow", "--limit", "2", "--cursor-file", cursor], {
    stubs,
    env: { ...CONFIGURED_ENV, PETSTORE_BASE_URL: `${OUTAGE.origin}/v1` },
    // The pauses: the follower's pace after the first page (the server goes away), the
    // back-offs of the call's two retries, then the follower's pause (it comes back).
    onSleep: async (_ms, sleeps) => {
      if (sleeps.length === 1) await OUTAGE.stop();
      if (sleeps.length === 4) await OUTAGE.listenAgain();
    },
  });
}

/** A feed record as the server writes it. */
function record(seq: number | string, fields: Record<string, unknown> = {}): string {
  return JSON.stringify({
    seq: 0,
    at: "2026-11-22T14:03:12.481Z",
    petId: 42,
    previous: 8,
    quantity: 7,
    keyName: "till-1",
    requestId: "0b6f4c1e-8f0a-4d7e-9a57-2f1c3d4e5a6b",
    reason: "sale",
    ref: null,
    ...fields,
  }).replace('"seq":0', `"seq":${seq}`);
}

/** A page of the seqs from..to (inclusive), `next` the last; empty when from > to. */
function page(from: number, to: number, next = to >= from ? to : from - 1): string {
  const records: string[] = [];
  for (let seq = from; seq <= to; seq += 1) records.push(record(seq, { petId: seq }));
  return `{"changes":[${records.join(",")}],"next":${next}}`;
}

/** Registers the answers of GET /v1/inventory/changes?<query>, in order. */
function feed(stubs: HttpStubs, answers: readonly [string, number, string][]): HttpStubs {
  for (const [query, status, body] of answers) {
    stubs.on("GET", `/v1/inventory/changes?${query}`).reply(status, body, json);
  }
  return stubs;
}

/** The TSV lines of seqs from..to as the page() records print. */
function tsv(from: number, to: number): string {
  let text = "";
  for (let seq = from; seq <= to; seq += 1) {
    text += `${seq}\t2026-11-22T14:03:12.481Z\t${seq}\t8\t7\ttill-1\t0b6f4c1e-8f0a-4d7e-9a57-2f1c3d4e5a6b\tsale\t\n`;
  }
  return text;
}

/** A cursor file as a run saves it after the page() record of `seq`: the seq, then that change. */
const cursorText = (seq: number) => ({
  cursor: `${seq}\n`,
  lastChange: `${seq} pet ${seq} at 2026-11-22T14:03:12.481Z\n`,
});

/** The cursor file and the last-change file beside it, as they are. */
const savedCursor = (cursor: string) => ({
  cursor: readFileSync(cursor, "utf8"),
  lastChange: readFileSync(`${cursor}.last-change`, "utf8"),
});

/** A cursor file at `seq`, with the last-change file a run writes beside it. */
function writeCursor(cursor: string, seq: number): void {
  const { cursor: text, lastChange } = cursorText(seq);
  writeFileSync(cursor, text);
  writeFileSync(`${cursor}.last-change`, lastChange);
}

let temp: { dir: string; remove: () => void };
beforeEach(() => {
  temp = tempDir("petstore-changes-");
});
afterEach(() => {
  temp.remove();
});

describe("inventory changes", () => {
  it("walks the feed from the first change, pages of 1000, one tab-separated line each when piped", async () => {
    const stubs = feed(new HttpStubs(), [
      ["after=0&limit=1000", 200, page(1, 1000)],
      ["after=1000&limit=1000", 200, page(1001, 1002)],
    ]);
    const result = await runFake(["inventory", "changes"], { stubs });
    expect(result).toMatchObject({ code: 0, stderr: "", stdout: tsv(1, 1002) });
    expect(stubs.requests.map((request) => `${request.origin}${request.path}`)).toEqual([
      `${ORIGIN}/v1/inventory/changes?after=0&limit=1000`,
      `${ORIGIN}/v1/inventory/changes?after=1000&limit=1000`,
    ]);
  });

  it("prints at most --limit changes, asking for no more than are left", async () => {
    const stubs = feed(new HttpStubs(), [
      ["after=0&limit=1000", 200, page(1, 1000)],
      ["after=1000&limit=500", 200, page(1001, 1500)],
    ]);
    const result = await runFake(["inventory", "changes", "--limit", "1500"], { stubs });
    expect(result).toMatchObject({ code: 0, stderr: "", stdout: tsv(1, 1500) });
  });

  it("starts after --after, exactly for an int64 seq, and prints JSON Lines with --json", async () => {
    const stubs = feed(new HttpStubs(), [
      [
        `after=${BigInt(MAX_ID) - 1n}&limit=1000`,
        200,
        `{"changes":[${record(MAX_ID, { petId: MAX_ID, previous: null, reason: null, ref: "till-1:0001" }).replaceAll(`"${MAX_ID}"`, MAX_ID)}],"next":${MAX_ID}}`,
      ],
    ]);
    const after = (BigInt(MAX_ID) - 1n).toString();
    const result = await runFake(["inventory", "changes", "--after", after, "--json"], { stubs });
    expect(result).toMatchObject({
      code: 0,
      stderr: "",
      stdout: `{"seq":${MAX_ID},"at":"2026-11-22T14:03:12.481Z","petId":${MAX_ID},"previous":null,"quantity":7,"keyName":"till-1","requestId":"0b6f4c1e-8f0a-4d7e-9a57-2f1c3d4e5a6b","reason":null,"ref":"till-1:0001"}\n`,
    });
  });

  it("prints CSV with a header with --csv", async () => {
    const stubs = feed(new HttpStubs(), [["after=0&limit=1000", 200, page(1, 2)]]);
    const result = await runFake(["inventory", "changes", "--csv"], { stubs });
    expect(result.stdout).toBe(
      "seq,at,petId,previous,quantity,keyName,requestId,reason,ref\n" +
        "1,2026-11-22T14:03:12.481Z,1,8,7,till-1,0b6f4c1e-8f0a-4d7e-9a57-2f1c3d4e5a6b,sale,\n" +
        "2,2026-11-22T14:03:12.481Z,2,8,7,till-1,0b6f4c1e-8f0a-4d7e-9a57-2f1c3d4e5a6b,sale,\n",
    );
  });

  it("prints a table with local times on a terminal, and says when there is no change", async () => {
    const stubs = feed(new HttpStubs(), [["after=0&limit=1000", 200, page(1, 2)]]);
    const result = await runFake(["--no-color", "inventory", "changes"], { stubs, isTTY: true });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/seq.*when.*petId.*previous.*quantity.*change.*key.*reason/);
    expect(result.stdout).toMatch(
      new RegExp(
        `│ +2 │ ${localTime("2026-11-22T14:03:12.481Z")} │ +2 │ +8 │ +7 │ +-1 │ till-1 +│ sale`,
      ),
    );
    const none = feed(new HttpStubs(), [["after=7&limit=1000", 200, page(8, 7)]]);
    const empty = await runFake(["inventory", "changes", "--after", "7"], {
      stubs: none,
      isTTY: true,
    });
    expect(empty).toMatchObject({ code: 0, stdout: "no changes after seq 7\n", stderr: "" });
  });

  it("with --follow on a terminal prints a header, then aligned lines as changes come", async () => {
    const stubs = feed(new HttpStubs(), [
      ["after=0&limit=3&wait=30", 200, page(1, 1)],
      ["after=1&limit=2&wait=30", 200, page(2, 1)],
      ["after=1&limit=2&wait=30", 200, page(2, 3)],
    ]);
    const result = await runFake(
      ["--no-color", "inventory", "changes", "--follow", "--limit", "3"],
      {
        stubs,
        isTTY: true,
      },
    );
    expect(result.code).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines[0]).toMatch(
      /^ +seq {2}when +petId {2}previous {2}quantity {2}change {2}key +ref +reason$/,
    );
    expect(lines.slice(1).map((line) => line.trim().split(/ +/)[0])).toEqual(["1", "2", "3", ""]);
    expect(result.stdout).not.toContain("│");
  });

  it("with --follow piped prints each page as it comes, past empty ones, and --limit ends it", async () => {
    const stubs = feed(new HttpStubs(), [
      ["after=0&limit=3&wait=30", 200, page(1, 2)],
      ["after=2&limit=1&wait=30", 200, page(3, 2)],
      ["after=2&limit=1&wait=30", 200, page(3, 3)],
    ]);
    const result = await runFake(["inventory", "changes", "--follow", "--limit", "3", "--json"], {
      stubs,
    });
    expect(result.code).toBe(0);
    expect(result.stdout.split("\n").map((line) => line.slice(0, 9))).toEqual([
      '{"seq":1,',
      '{"seq":2,',
      '{"seq":3,',
      "",
    ]);
  });
});

describe("inventory changes --cursor-file", () => {
  it("starts from 0 when the file does not exist, and saves the last seq printed", async () => {
    const cursor = join(temp.dir, "changes.cursor");
    const stubs = feed(new HttpStubs(), [
      ["after=0&limit=1000", 200, page(1, 1000)],
      ["after=1000&limit=1000", 200, page(1001, 1003)],
    ]);
    const result = await runFake(["inventory", "changes", "--cursor-file", cursor], { stubs });
    expect(result).toMatchObject({ code: 0, stderr: "", stdout: tsv(1, 1003) });
    expect(savedCursor(cursor)).toEqual(cursorText(1003));
  });

  it("goes on after the seq the file holds, and leaves it be when there is nothing new", async () => {
    const cursor = join(temp.dir, "changes.cursor");
    writeFileSync(cursor, "1003\n");
    const stubs = feed(new HttpStubs(), [["after=1003&limit=1000", 200, page(1004, 1005)]]);
    const first = await runFake(["inventory", "changes", "--cursor-file", cursor], { stubs });
    expect(first).toMatchObject({ code: 0, stdout: tsv(1004, 1005) });
    expect(savedCursor(cursor)).toEqual(cursorText(1005));
    // The file names the change at 1005 now: the store is asked whether it still holds it.
    const again = feed(new HttpStubs(), [
      ["after=1004&limit=1", 200, page(1005, 1005)],
      ["after=1005&limit=1000", 200, page(1006, 1005)],
    ]);
    const second = await runFake(["inventory", "changes", "--cursor-file", cursor], {
      stubs: again,
    });
    expect(second).toMatchObject({ code: 0, stdout: "", stderr: "" });
    expect(savedCursor(cursor)).toEqual(cursorText(1005));
  });

  it("refuses a cursor whose change the store holds no more at its seq (restored): exit 2, nothing printed", async () => {
    const cursor = join(temp.dir, "changes.cursor");
    writeCursor(cursor, 17);
    // seq 17 is now another pet's change, made after the restore.
    const stubs = feed(new HttpStubs(), [
      ["after=16&limit=1", 200, `{"changes":[${record(17, { petId: 3 })}],"next":17}`],
    ]);
    const result = await runFake(["inventory", "changes", "--cursor-file", cursor], { stubs });
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr:
        `error: the cursor file ${cursor} stops after the change at seq 17 (pet 17 at 2026-11-22T14:03:12.481Z), but this store has another change there (pet 3 at 2026-11-22T14:03:12.481Z): it was restored from a backup (or is another store), and the changes it made since would be skipped; nothing was printed\n` +
        `hint: write into ${cursor} the seq of the last change this store and the export both hold (the restored backup's latest; docs/operating.md, step 4 of the restore, says how to find it), alone on its line, and run again; or delete the file to export the whole history again\n`,
      sleeps: [],
    });
    expect(savedCursor(cursor)).toEqual(cursorText(17));
  });

  it("refuses a marked cursor past the store's latest change, naming the seq the file holds", async () => {
    const cursor = join(temp.dir, "changes.cursor");
    writeCursor(cursor, 17);
    const stubs = new HttpStubs();
    stubs
      .on("GET", "/v1/inventory/changes?after=16&limit=1")
      .reply(200, '{"changes":[],"next":16}', {
        headers: { "content-type": "application/json", "inventory-seq": "15" },
      });
    const result = await runFake(["inventory", "changes", "--cursor-file", cursor], { stubs });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `error: the cursor file ${cursor} says seq 17, past the store's latest change (seq 15)`,
    );
    expect(savedCursor(cursor)).toEqual(cursorText(17));
  });

  it("keeps the cursor of the last page printed when a later page fails (exit 3)", async () => {
    const cursor = join(temp.dir, "changes.cursor");
    const stubs = feed(new HttpStubs(), [
      ["after=0&limit=1000", 200, page(1, 1000)],
      ["after=1000&limit=1000", 500, '{"code":"internal","message":"boom","status":500}'],
    ]);
    const result = await runFake(["inventory", "changes", "--cursor-file", cursor], { stubs });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe(tsv(1, 1000));
    expect(result.stderr).toContain("error: boom (internal, HTTP 500)");
    expect(savedCursor(cursor)).toEqual(cursorText(1000));
  });

  it("saves the cursor of a table only once the table is printed", async () => {
    const cursor = join(temp.dir, "changes.cursor");
    const stubs = feed(new HttpStubs(), [
      ["after=0&limit=1000", 200, page(1, 1000)],
      ["after=1000&limit=1000", 503, '{"code":"unavailable","message":"down","status":503}'],
      ["after=1000&limit=1000", 503, '{"code":"unavailable","message":"down","status":503}'],
      ["after=1000&limit=1000", 503, '{"code":"unavailable","message":"down","status":503}'],
    ]);
    const result = await runFake(["inventory", "changes", "--cursor-file", cursor], {
      stubs,
      isTTY: true,
    });
    expect(result.code).toBe(3);
    // The table was never printed, so the cursor stays where it was: nothing is skipped.
    expect(result.stdout).toBe("");
    expect(existsSync(cursor)).toBe(false);
  });

  it("refuses a malformed cursor file (exit 2, naming it) before sending anything", async () => {
    const cursor = join(temp.dir, "changes.cursor");
    writeFileSync(cursor, "next=12\n");
    const stubs = new HttpStubs();
    const result = await runFake(["inventory", "changes", "--cursor-file", cursor], { stubs });
    expect(result).toMatchObject({
      code: 2,
      stdout: "",
      stderr: `error: the cursor file ${cursor} does not hold a seq: found "next=12", expected a whole number from 0 to 9223372036854775807\nhint: the file holds the seq of the last change printed, written by inventory changes --cursor-file; delete it to start from the first change, or write the seq to start after\n`,
    });
    expect(stubs.calls()).toEqual([]);
  });

  it("refuses a cursor file in a directory that does not exist (exit 2) before sending anything", async () => {
    const cursor = join(temp.dir, "nowhere", "changes.cursor");
    const stubs = new HttpStubs();
    const result = await runFake(["inventory", "changes", "--cursor-file", cursor], { stubs });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `error: cannot save the cursor file ${cursor}: its directory ${join(temp.dir, "nowhere")}: no such file or directory\nhint: give --cursor-file a path in a directory that exists and this user may write to\n`,
    );
    expect(stubs.calls()).toEqual([]);
  });

  it("refuses a cursor file that is a directory (exit 2)", async () => {
    const cursor = join(temp.dir, "a-directory");
    mkdirSync(cursor);
    const result = await runFake(["inventory", "changes", "--cursor-file", cursor]);
    expect(result).toMatchObject({
      code: 2,
      stderr: `error: cannot read the cursor file ${cursor}: it is a directory\n`,
    });
  });

  it("refuses --after together with --cursor-file (exit 2)", async () => {
    const cursor = join(temp.dir, "changes.cursor");
    const result = await runFake(["inventory", "changes", "--after", "5", "--cursor-file", cursor]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "error: option '--after <seq>' cannot be used with option '--cursor-file <file>'",
    );
  });
});

describe("inventory changes: bad arguments and failures", () => {
  it.each([
    [
      ["--after", "-1"],
      "option '--after <seq>' argument '-1' is invalid. expected a seq, a whole number from 0 to 9223372036854775807.",
    ],
    [["--after", "abc"], "expected a seq, a whole number from 0 to 9223372036854775807."],
    [
      ["--after", "007"],
      "leading zeros are not allowed; write 7 (a seq from 0 to 9223372036854775807).",
    ],
    [["--after", "9223372036854775808"], "expected a seq"],
    [
      ["--limit", "0"],
      "option '--limit <n>' argument '0' is invalid. expected a number of changes from 1 to 9007199254740991.",
    ],
    [["--limit", "ten"], "expected a number of changes"],
    [["--json", "--csv"], "error: --json and --csv cannot be used together"],
  ])("refuses %j (exit 2) and sends nothing", async (args, message) => {
    const stubs = new HttpStubs();
    const result = await runFake(["inventory", "changes", ...args], { stubs });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(message);
    expect(stubs.calls()).toEqual([]);
  });

  it("exits 6 with the server's message when it refuses the request (400)", async () => {
    const stubs = feed(new HttpStubs(), [
      [
        "after=0&limit=1000",
        400,
        '{"code":"invalid_parameter","message":"after must be a whole number from 0 to 9223372036854775807","status":400}',
      ],
    ]);
    const result = await runFake(["inventory", "changes"], { stubs });
    expect(result.code).toBe(6);
    expect(result.stderr).toContain(
      "error: after must be a whole number from 0 to 9223372036854775807 (invalid_parameter, HTTP 400)",
    );
  });

  it("exits 4 when the key is refused (401)", async () => {
    const stubs = feed(new HttpStubs(), [
      [
        "after=0&limit=1000",
        401,
        '{"code":"unauthorized","message":"invalid API key","status":401}',
      ],
    ]);
    const result = await runFake(["inventory", "changes"], { stubs });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain("error: invalid API key (unauthorized, HTTP 401)");
  });

  it("exits 2 against a server without the change feed (404), saying what it needs", async () => {
    const stubs = feed(new HttpStubs(), [
      [
        "after=0&limit=1000&wait=30",
        404,
        '{"code":"not_found","message":"Route GET:/v1/inventory/changes not found","status":404}',
      ],
    ]);
    const result = await runFake(["inventory", "changes", "--follow"], { stubs });
    expect(result).toMatchObject({
      code: 2,
      stdout: "",
      stderr:
        "error: the server has no change feed (GET /inventory/changes answered 404 not_found)\n" +
        `hint: inventory changes needs a server with GET /v1/inventory/changes (petstore serve has it); check the base URL ${BASE_URL} (from PETSTORE_BASE_URL), which includes /v1\n`,
    });
  });

  it("exits 3 when the server stays unavailable (503) after the retries, without --follow", async () => {
    const body = '{"code":"unavailable","message":"the store is unavailable","status":503}';
    const stubs = feed(new HttpStubs(), [
      ["after=0&limit=1000", 503, body],
      ["after=0&limit=1000", 503, body],
      ["after=0&limit=1000", 503, body],
    ]);
    const result = await runFake(["inventory", "changes"], { stubs });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain("error: the store is unavailable (unavailable, HTTP 503)");
    expect(result.sleeps).toHaveLength(2);
  });

  it("exits 3 on a page that breaks the feed's order, naming the field", async () => {
    const stubs = feed(new HttpStubs(), [
      ["after=5&limit=1000", 200, `{"changes":[${record(5)}],"next":5}`],
    ]);
    const result = await runFake(["inventory", "changes", "--after", "5"], { stubs });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      `error: unexpected response from GET ${BASE_URL}/inventory/changes?after=5&limit=1000: .changes[0].seq is not above 5`,
    );
  });
});

describe("inventory changes --follow through outages and interrupts", () => {
  it("following, waits out a server not there yet before checking the cursor file's change", async () => {
    const cursor = join(temp.dir, "changes.cursor");
    writeCursor(cursor, 2);
    const stubs = new HttpStubs();
    // The check of the change at seq 2: a server starting (503, the call and its retries), then there.
    stubs
      .on("GET", "/v1/inventory/changes?after=1&limit=1")
      .reply(503, '{"code":"unavailable","message":"starting","status":503}', json)
      .times(3);
    stubs.on("GET", "/v1/inventory/changes?after=1&limit=1").reply(200, page(2, 2), json);
    stubs.on("GET", "/v1/inventory/changes?after=2&limit=1&wait=30").reply(200, page(3, 3), json);
    const result = await runFake(
      ["inventory", "changes", "--follow", "--limit", "1", "--cursor-file", cursor],
      { stubs },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(tsv(3, 3));
    expect(result.stderr).toContain("asking again until the server answers (interrupt to stop)\n");
    expect(savedCursor(cursor)).toEqual(cursorText(3));
  });

  it("following, refuses to go on when the store that answers again no more holds the change printed last (restored meanwhile)", async () => {
    const stubs = new HttpStubs();
    // Back after the outage, seq 1 is another pet's change.
    stubs
      .on("GET", "/v1/inventory/changes?after=0&limit=1", AT_OUTAGE)
      .reply(200, `{"changes":[${record(1, { petId: 9 })}],"next":1}`, json);
    const cursor = join(temp.dir, "changes.cursor");
    const result = await followThroughOutage(stubs, cursor);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe(tsv(1, 1));
    expect(result.stderr).toContain(
      "error: the last change printed was the change at seq 1 (pet 1 at 2026-11-22T14:03:12.481Z), but this store has another change there (pet 9 at 2026-11-22T14:03:12.481Z): it was restored from a backup (or is another store), and the changes it made since would be skipped; nothing more was printed\n",
    );
    expect(savedCursor(cursor)).toEqual(cursorText(1));
  });

  it("waits out a server that went away, says so once, and goes on from the last seq", async () => {
    const stubs = new HttpStubs();
    // Back, it comes back unavailable three times, then answers.
    const path = "/v1/inventory/changes?after=1&limit=1&wait=30";
    // Once it answers again, it is asked first whether it still holds the change printed
    // last (seq 1): a store restored meanwhile would not.
    stubs
      .on("GET", "/v1/inventory/changes?after=0&limit=1", AT_OUTAGE)
      .reply(200, page(1, 1), json);
    stubs
      .on("GET", path, AT_OUTAGE)
      .reply(503, '{"code":"unavailable","message":"shutting down","status":503}', json)
      .times(3);
    stubs.on("GET", path, AT_OUTAGE).reply(200, page(2, 2), json);
    const cursor = join(temp.dir, "changes.cursor");
    const result = await followThroughOutage(stubs, cursor);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(tsv(1, 2));
    expect(result.stderr).toBe(
      `warning: cannot reach ${OUTAGE.origin}/v1/inventory/changes?after=1&limit=1&wait=30: connection refused (ECONNREFUSED); asking again until the server answers (interrupt to stop)\n` +
        "note: the server answers again; following the changes after seq 1\n",
    );
    expect(savedCursor(cursor)).toEqual(cursorText(2));
  });

  it.each([
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const)(
    "exits %s → %i when interrupted while waiting, the cursor saved",
    async (signal, code) => {
      const stubs = feed(new HttpStubs(), [["after=0&limit=1000&wait=30", 200, page(1, 3)]]);
      const interrupts = new Interrupts();
      const deliveries: string[] = [];
      // The next long poll never answers: the signal comes while it waits.
      stubs.on("GET", /^\/v1\/inventory\/changes\?after=3&/).hang(() => {
        deliveries.push(interrupts.deliver(signal));
      });
      const cursor = join(temp.dir, "changes.cursor");
      const result = await runFake(["inventory", "changes", "--follow", "--cursor-file", cursor], {
        stubs,
        interrupts,
      });
      expect(deliveries).toEqual(["claimed"]);
      expect(result).toMatchObject({
        code,
        stdout: tsv(1, 3),
        stderr: `error: interrupted by ${signal}: stopped following after 3 changes (up to seq 3)\nhint: the cursor file ${cursor} holds seq 3: the same command goes on from there\n`,
      });
      expect(savedCursor(cursor)).toEqual(cursorText(3));
    },
  );

  it("says where to go on from with --after when there is no cursor file", async () => {
    const interrupts = new Interrupts();
    const stubs = new HttpStubs();
    stubs.on("GET", /^\/v1\/inventory\/changes\?after=41230&/).hang(() => {
      interrupts.deliver("SIGINT");
    });
    const result = await runFake(["inventory", "changes", "--follow", "--after", "41230"], {
      stubs,
      interrupts,
    });
    expect(result).toMatchObject({
      code: 130,
      stdout: "",
      stderr:
        "error: interrupted by SIGINT: stopped following after 0 changes (up to seq 41230)\nhint: --after 41230 goes on from there\n",
    });
  });
});
