/**
 * A count session against a store that went back (restored from a backup), in-process, from
 * stdin: the change at the highest seq a pet was read as of is noted (`seen`), and checked
 * when a pet is read as of another seq; a session saved without one notes it when resumed.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { tempDir } from "../../support/temp-dir.js";
import { CONFIGURED_ENV, HttpStubs, json, runFake } from "../fake-deps.js";

const temp = tempDir("petstore-count-seen-");
afterAll(() => {
  temp.remove();
});

/** GET /v1/inventory/{petId} answering `quantity`, read as of `seq`. */
function pet(stubs: HttpStubs, petId: number, quantity: number, seq: number): void {
  stubs
    .on("GET", `/v1/inventory/${petId}`)
    .reply(200, `{"petId":${petId},"quantity":${quantity},"status":"available"}`, {
      headers: { ...json.headers, etag: `"${quantity}"`, "inventory-seq": String(seq) },
    });
}

/** The feed's page holding the change at `seq`, of `petId` at `at` (`times` asked). */
function changeAt(stubs: HttpStubs, seq: number, petId: number, at: string, times = 1): void {
  stubs
    .on("GET", `/v1/inventory/changes?after=${seq - 1}&limit=1`)
    .times(times)
    .reply(
      200,
      `{"changes":[{"seq":${seq},"at":"${at}","petId":${petId},"previous":1,"quantity":2,"keyName":"till-1","requestId":null,"reason":null,"ref":null}],"next":${seq}}`,
      json,
    );
}

const NOON = "2026-11-27T12:00:00.000Z";
const LATER = "2026-11-27T15:00:00.000Z";

/** `inventory count ARGS` with `stdin`, its sessions under `stateHome`. */
function count(stubs: HttpStubs, stateHome: string, args: readonly string[], stdin: string) {
  return runFake(["inventory", "count", ...args], {
    stubs,
    stdin,
    env: { ...CONFIGURED_ENV, XDG_STATE_HOME: stateHome },
  });
}

/**
 * A journal as an earlier petstore saved it, without the change it was read as of: session
 * `id`, pet 1 counted 5 as of seq 7. Its path.
 */
function earlierJournal(stateHome: string, id: string): string {
  const directory = join(stateHome, "petstore", "counts");
  mkdirSync(directory, { recursive: true });
  const journal = join(directory, `${id}.jsonl`);
  writeFileSync(
    journal,
    `{"type":"session","id":"${id}","server":"${CONFIGURED_ENV.PETSTORE_BASE_URL}","startedAt":"2026-11-27T09:00:00.000Z","full":false,"status":null}\n` +
      '{"type":"set","petId":"1","count":5,"read":{"status":"available","book":3,"asOf":"7"}}\n',
  );
  return journal;
}

describe("inventory count: the change its pets were read as of", () => {
  it("reads a pet as of a later seq only once the change it noted is still the store's: refused when not, the line not counted", async () => {
    const stateHome = join(temp.dir, "later");
    const stubs = new HttpStubs();
    pet(stubs, 1, 3, 7);
    changeAt(stubs, 7, 1, NOON);
    pet(stubs, 2, 5, 9);
    // Seq 7 is another change now: the store went back to before it, then traded.
    changeAt(stubs, 7, 4, LATER);
    const result = await count(stubs, stateHome, ["--yes"], "1 =5\n2 =6\ndone\n");
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      new RegExp(
        `error: count session (\\S+) read its pets as of the changes up to seq 7 \\(pet 1 at ${NOON}\\), but the store has another change there \\(pet 4 at ${LATER}\\): it was restored from a backup since \\(or is another store\\), and these counts would be taken against changes it no longer holds; nothing was posted\n`,
      ),
    );
    expect(stubs.calls()).not.toContain("POST /v1/inventory/batch");
    // Pet 2's line was not counted: the journal holds pet 1's alone.
    const id = /count session (\S+) read/.exec(result.stderr)?.[1] ?? "";
    const entries = readFileSync(join(stateHome, "petstore", "counts", `${id}.jsonl`), "utf8")
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; petId?: string });
    expect(entries.filter((entry) => entry.type === "set").map((entry) => entry.petId)).toEqual([
      "1",
    ]);
  });

  it("takes a pet read as of a lower seq than the one noted as a store gone back: checked, and refused when the change is gone", async () => {
    const stateHome = join(temp.dir, "lower");
    const stubs = new HttpStubs();
    pet(stubs, 1, 3, 7);
    changeAt(stubs, 7, 1, NOON);
    pet(stubs, 2, 5, 4);
    stubs.on("GET", "/v1/inventory/changes?after=6&limit=1").reply(200, '{"changes":[],"next":6}', {
      headers: { ...json.headers, "inventory-seq": "4" },
    });
    const result = await count(stubs, stateHome, ["--yes"], "1 =5\n2 =6\ndone\n");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `(pet 1 at ${NOON}), but the store holds no change at that seq: it was restored`,
    );
  });

  it("resuming a session saved without the change noted, where the store has no change at its seq: refused", async () => {
    const stateHome = join(temp.dir, "older-gone");
    const id = "20261127-090000-0e0f1011";
    earlierJournal(stateHome, id);
    const stubs = new HttpStubs();
    stubs.on("GET", "/v1/inventory/changes?after=6&limit=1").reply(200, '{"changes":[],"next":6}', {
      headers: { ...json.headers, "inventory-seq": "4" },
    });
    const result = await count(stubs, stateHome, ["--resume", id, "--yes"], "done\n");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `error: count session ${id} read its pets as of the changes up to seq 7, but the store holds no change at that seq: it was restored`,
    );
    expect(result.stderr).not.toContain("note:");
  });

  it("resuming a session saved without the change noted, notes it and says a restore before now cannot be told", async () => {
    const stateHome = join(temp.dir, "older");
    const id = "20261127-090000-0a0b0c0d";
    const journal = earlierJournal(stateHome, id);
    const stubs = new HttpStubs();
    // Noted when resumed, then checked before the post.
    changeAt(stubs, 7, 1, NOON, 2);
    stubs
      .on("POST", "/v1/inventory/batch")
      .reply(
        200,
        '{"changed":1,"unchanged":0,"failed":0,"results":[{"petId":1,"outcome":"changed","previous":3,"quantity":5,"status":"available","book":3,"since":0,"counted":5,"variance":2}]}',
        json,
      );
    const result = await count(stubs, stateHome, ["--resume", id, "--yes"], "done\n");
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      `note: session ${id} was saved by an earlier petstore, which did not note the store's change at seq 7: a restore of the store from a backup before now cannot be told; from now on it can\n`,
    );
    const types = readFileSync(journal, "utf8")
      .trimEnd()
      .split("\n")
      .map((line) => (JSON.parse(line) as { type: string }).type);
    expect(types).toEqual(["session", "set", "seen", "posted"]);
  });
});
