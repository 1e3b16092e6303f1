/**
 * A count session's post interrupted while its last batch is in flight, in-process: the signal
 * is delivered from inside the held POST, which is then answered whole. Every count applied,
 * the session is posted (a later `--resume` has nothing to post), though the run ends 130 for
 * the interrupt; its hint says nothing is left to post.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Interrupts } from "../../../src/program/interrupts.js";
import { tempDir } from "../../support/temp-dir.js";
import { CONFIGURED_ENV, HttpStubs, json, runFake } from "../fake-deps.js";

const temp = tempDir("petstore-count-interrupt-");
afterAll(() => {
  temp.remove();
});

const ITEM = '{"petId":1,"quantity":3,"status":"available"}';
/** The feed's change at seq 7, which the session notes (its pet read as of 7) and checks. */
const CHANGE_AT_7 =
  '{"changes":[{"seq":7,"at":"2026-11-27T09:00:00.000Z","petId":1,"previous":4,"quantity":3,"keyName":"till-1","requestId":null,"reason":null,"ref":null}],"next":7}';
const RESULT =
  '{"changed":1,"unchanged":0,"failed":0,"results":[{"petId":1,"outcome":"changed","previous":3,"quantity":5,"status":"available","book":3,"since":0,"counted":5,"variance":2}]}';

/** The session's journal entries' types, in order. */
function journalTypes(stateHome: string): string[] {
  const directory = join(stateHome, "petstore", "counts");
  const journal = readdirSync(directory).find((name) => name.endsWith(".jsonl"));
  if (journal === undefined) throw new Error(`no journal in ${directory}`);
  return readFileSync(join(directory, journal), "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => (JSON.parse(line) as { type: string }).type);
}

/**
 * `inventory count --yes` counting pet 1 from stdin, its post (answered `status`, `body`) held
 * until SIGINT is delivered, then answered whole.
 */
async function postInterrupted(stateHome: string, status: number, body: string) {
  const stubs = new HttpStubs();
  stubs.on("GET", "/v1/inventory/1").reply(200, ITEM, {
    headers: { ...json.headers, etag: '"3"', "inventory-seq": "7" },
  });
  stubs.on("GET", "/v1/inventory/changes?after=6&limit=1").times(2).reply(200, CHANGE_AT_7, json);
  stubs.on("POST", "/v1/inventory/batch").reply(status, body, json);
  const interrupts = new Interrupts();
  stubs.hold("POST", (_count, held) => {
    interrupts.deliver("SIGINT");
    held.release();
  });
  return runFake(["inventory", "count", "--yes"], {
    stubs,
    interrupts,
    stdin: "1 =5\n",
    env: { ...CONFIGURED_ENV, XDG_STATE_HOME: stateHome },
  });
}

describe("inventory count: an interrupt while the post is in flight", () => {
  it("every count applied: the session is posted, exit 130, and the hint says nothing is left", async () => {
    const stateHome = join(temp.dir, "complete");
    const result = await postInterrupted(stateHome, 200, RESULT);
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(
      /error: interrupted by SIGINT once every row was sent: 1 change applied \(the report lists them\)\nhint: every count was posted before the run stopped: nothing is left to post \(session [0-9a-f-]+ is posted\)\n$/,
    );
    expect(journalTypes(stateHome).at(-1)).toBe("posted");
  });

  it("a count rejected: the session stays open, and the hint says to post it again with --resume", async () => {
    const stateHome = join(temp.dir, "rejected");
    // The atomic batch rejected: a sale since the read took the pet below 0 counted.
    const result = await postInterrupted(
      stateHome,
      409,
      '{"code":"batch_rejected","message":"1 of 1 changes failed","results":[{"petId":1,"outcome":"below_zero","previous":3,"quantity":3,"status":"available","book":3,"since":-9,"counted":5,"variance":2}]}',
    );
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(
      /error: interrupted by SIGINT once every row was sent: 0 changes applied, 1 failed \(the report lists them\)\nhint: post it again with petstore inventory count --resume [0-9a-f-]+: a count posted once comes back as posted before\n$/,
    );
    expect(journalTypes(stateHome)).not.toContain("posted");
  });
});
