/**
 * `petstore inventory apply` end to end: the real binary against the real `petstore serve` on
 * a temporary SQLite file (and, where the store matters, on PostgreSQL). Each describe starts
 * its own server, so the stock it checks is only what its own runs changed.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "lossless-json";
import { afterAll, describe, expect, it } from "vitest";
import { tempDir } from "../support/temp-dir.js";
import { runCli } from "./support/cli.js";
import { replyJson, startFakeServer } from "./support/fake-server.js";
import {
  API_KEY,
  describeEachStore,
  serverForBlock,
  type SeedFileEntry,
} from "./support/servers.js";
import { HAS_SCRIPT, runCliInTty } from "./support/tty.js";
import { MAX_ID } from "../support/ids.js";

const SEED: SeedFileEntry[] = [
  { petId: 1, name: "Rex", status: "available", quantity: 3 },
  { petId: 2, name: "Tom", status: "pending", quantity: 0 },
  { petId: 3, name: "Kiwi", status: "available", quantity: 4 },
  { petId: MAX_ID - 1n, name: "Almost", status: "sold", quantity: 8 },
  { petId: MAX_ID, name: "Max", status: "sold", quantity: 1 },
];

const files = tempDir("petstore-apply-e2e-");
afterAll(() => {
  files.remove();
});

/** Writes a counts file and returns its path. */
function countsFile(name: string, text: string): string {
  const path = join(files.dir, name);
  writeFileSync(path, text);
  return path;
}

/** The stock as `inventory list --csv` prints it (exact ids). */
async function stock(env: Record<string, string>): Promise<string> {
  const result = await runCli(["inventory", "list", "--csv"], { env });
  expect(result.code).toBe(0);
  return result.stdout;
}

interface Report {
  changed: number;
  unchanged: number;
  failed: number;
  results: { petId: bigint; previous: number | null; desired: number; outcome: string }[];
}

/** Parses a --json report with int64 ids as bigint and other numbers as numbers. */
function report(stdout: string): Report {
  return parse(stdout, undefined, (text) => {
    const value = BigInt(text);
    return value > 2_147_483_647n ? value : Number(text);
  }) as Report;
}

describeEachStore("apply, dry run and re-run, on %s", (store) => {
  const { env } = serverForBlock(SEED, { store });
  const counts = () =>
    countsFile(
      "counts.csv",
      `\uFEFFpetId,quantity,name\r\n1,5,Rex\r\n2,0,Tom\r\n3,9,Kiwi\r\n${MAX_ID},2,Max\r\n`,
    );

  it("--dry-run prints the changes and changes nothing", async () => {
    const before = await stock(env());
    const result = await runCli(["inventory", "apply", "--dry-run", counts()], { env: env() });
    expect(result).toEqual({
      code: 0,
      stdout: `1\t3\t5\n3\t4\t9\n${MAX_ID}\t1\t2\n`,
      stderr: "dry run: 3 of 4 rows would change; nothing was changed\n",
    });
    expect(await stock(env())).toBe(before);
  });

  it("applies only the differences, then a re-run changes nothing", async () => {
    const first = await runCli(["inventory", "apply", counts()], { env: env() });
    expect(first.code).toBe(0);
    expect(first.stderr).toBe("");
    expect(first.stdout).toBe(
      `${join(files.dir, "counts.csv")}: 3 changed, 1 unchanged, 0 failed\n` +
        "changed:\n  pet 1: 3 -> 5\n  pet 3: 4 -> 9\n" +
        `  pet ${MAX_ID}: 1 -> 2\n`,
    );
    expect(await stock(env())).toBe(
      "petId,quantity,status\n1,5,available\n2,0,pending\n3,9,available\n" +
        `${MAX_ID - 1n},8,sold\n${MAX_ID},2,sold\n`,
    );

    const again = await runCli(["inventory", "apply", "--json", counts()], { env: env() });
    expect(again.code).toBe(0);
    expect(report(again.stdout)).toEqual({
      changed: 0,
      unchanged: 4,
      failed: 0,
      notAttempted: 0,
      results: [
        { petId: 1, previous: 5, desired: 5, outcome: "unchanged" },
        { petId: 2, previous: 0, desired: 0, outcome: "unchanged" },
        { petId: 3, previous: 9, desired: 9, outcome: "unchanged" },
        { petId: MAX_ID, previous: 2, desired: 2, outcome: "unchanged" },
      ],
    });
  });
});

describeEachStore("apply, partial failure, stdin, int64 ids, on %s", (store) => {
  const { env } = serverForBlock(SEED, { store });

  it("applies the known pets, reports the unknown one, exits 7", async () => {
    const path = countsFile("partial.csv", "petId,quantity\n1,6\n424242,3\n2,1\n");
    const result = await runCli(["inventory", "apply", "--json", path], { env: env() });
    expect(result.code).toBe(7);
    expect(report(result.stdout)).toEqual({
      changed: 2,
      unchanged: 0,
      failed: 1,
      notAttempted: 0,
      results: [
        { petId: 1, previous: 3, desired: 6, outcome: "changed" },
        {
          petId: 424242,
          previous: null,
          desired: 3,
          outcome: "failed",
          reason: "no such pet",
          code: "not_found",
        },
        { petId: 2, previous: 0, desired: 1, outcome: "changed" },
      ],
    });
    expect(result.stderr).toBe(
      "error: 1 of 3 changes failed (the report lists them); the other 2 were applied\n" +
        "hint: fix or remove the failed rows (the report says why each failed), then run it again: it changes only what is still different\n",
    );
    expect(await stock(env())).toContain("\n1,6,available\n2,1,pending\n");
  });

  it("reads JSON from stdin and keeps neighbouring int64 ids apart", async () => {
    const input = `[\n  {"petId": ${MAX_ID - 1n}, "quantity": 11},\n  {"petId": ${MAX_ID}, "quantity": 12}\n]\n`;
    const result = await runCli(["inventory", "apply", "-"], { env: env(), input });
    expect(result).toEqual({
      code: 0,
      stdout:
        "stdin: 2 changed, 0 unchanged, 0 failed\nchanged:\n" +
        `  pet ${MAX_ID - 1n}: 8 -> 11\n  pet ${MAX_ID}: 1 -> 12\n`,
      stderr: "",
    });
    expect(await stock(env())).toContain(`\n${MAX_ID - 1n},11,sold\n${MAX_ID},12,sold\n`);
  });

  it("reads CSV from stdin with --format", async () => {
    const result = await runCli(["inventory", "apply", "--format", "csv", "--json", "-"], {
      env: env(),
      input: "quantity,petId\n4,3\n",
    });
    expect(result.code).toBe(0);
    expect(report(result.stdout)).toMatchObject({ changed: 0, unchanged: 1, failed: 0 });
  });
});

describe("apply refuses bad input and too many changes, changing nothing", () => {
  const { env } = serverForBlock(SEED);

  it.each([
    [
      "bad-quantity.csv",
      "petId,quantity\n1,5\n2,-1\n",
      'bad-quantity.csv line 3: invalid quantity "-1"',
    ],
    [
      "fraction.csv",
      "petId,quantity\n1,5\n\n2,2.5\n",
      'fraction.csv line 4: invalid quantity "2.5"',
    ],
    ["big.csv", "petId,quantity\n1,2147483648\n", 'big.csv line 2: invalid quantity "2147483648"'],
    ["bad-id.csv", "petId,quantity\n1,5\n0,1\n", 'bad-id.csv line 3: invalid petId "0"'],
    [
      "no-column.csv",
      "petId,count\n1,5\n",
      "no-column.csv line 1: the header has no quantity column",
    ],
    [
      "sales.csv",
      "petId,quantity,delta\n1,5,-1\n",
      "sales.csv line 1: the header has a delta column: a file of counts holds quantities (petId,quantity) and a delta is a change: apply changes with `petstore inventory adjust --file`",
    ],
    ["short-row.csv", "petId,quantity\n1,5\n2\n", "short-row.csv line 3: missing quantity"],
    [
      "duplicate.csv",
      "petId,quantity\n1,5\n2,1\n1,7\n",
      "duplicate.csv line 4: duplicate petId 1 (first on line 2)",
    ],
    [
      "string.json",
      '[\n  {"petId": 1, "quantity": 5},\n  {"petId": 2, "quantity": "5"}\n]',
      'string.json entry 2 (line 3): invalid quantity "5" (a string)',
    ],
    [
      "duplicate.json",
      '[{"petId": 1, "quantity": 5},\n {"petId": 1, "quantity": 6}]',
      "duplicate.json entry 2 (line 2): duplicate petId 1 (first on entry 1 (line 1))",
    ],
    ["broken.json", '[\n  {"petId": 1, "quantity": 5,\n]', "broken.json line 3: not valid JSON"],
    [
      "unknown-field.json",
      '[\n  {"petId": 1, "quantity": 5},\n  {"petId": 2, "quantity": 6, "extra": 1}\n]',
      'unknown-field.json entry 2 (line 3): unknown field "extra" (allowed: petId, quantity, status)\n',
    ],
  ])("%s: exit 2 naming the line, no request, no change", async (name, text, message) => {
    const path = countsFile(name, text);
    const fake = await startFakeServer((_request, response) => {
      replyJson(response, 500, "{}");
    });
    const againstFake = await runCli(["inventory", "apply", path], {
      env: { PETSTORE_BASE_URL: fake.url, PETSTORE_API_KEY: API_KEY },
    });
    await fake.stop();
    expect(fake.requests).toEqual([]);
    expect(againstFake.code).toBe(2);

    const before = await stock(env());
    const result = await runCli(["inventory", "apply", path], { env: env() });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(`error: ${path.replace(name, "")}${message}`);
    expect(result.stderr).toContain("hint: fix the file and run again; nothing was applied\n");
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(await stock(env())).toBe(before);
  });

  it("exit 2 for a file it cannot read", async () => {
    const path = join(files.dir, "missing.csv");
    const result = await runCli(["inventory", "apply", path], { env: env() });
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr:
        `error: cannot read ${path}: no such file or directory\n` +
        "hint: give a readable CSV or JSON file, or - to read stdin\n",
    });
  });

  it("--max-changes refuses the whole run when more would change", async () => {
    const path = countsFile("many.csv", "petId,quantity\n1,10\n2,10\n3,10\n");
    const before = await stock(env());
    const result = await runCli(["inventory", "apply", "--max-changes", "2", path], {
      env: env(),
    });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(
      `error: ${path}: 3 entries would change, more than --max-changes 2; nothing was applied\n`,
    );
    expect(await stock(env())).toBe(before);

    const allowed = await runCli(["inventory", "apply", "--max-changes", "3", "--json", path], {
      env: env(),
    });
    expect(allowed.code).toBe(0);
    expect(report(allowed.stdout)).toMatchObject({ changed: 3, unchanged: 0, failed: 0 });
  });

  it("an empty (header-only) file is nothing to do", async () => {
    const path = countsFile("empty.csv", "petId,quantity\n");
    const result = await runCli(["inventory", "apply", "--json", path], { env: env() });
    expect(result).toEqual({
      code: 0,
      stdout:
        '{\n  "changed": 0,\n  "unchanged": 0,\n  "failed": 0,\n  "notAttempted": 0,\n  "results": []\n}\n',
      stderr: "",
    });
  });

  it("takes what inventory list --json prints (status beside petId and quantity) as a counts file", async () => {
    const listed = await runCli(["inventory", "list", "--json"], { env: env() });
    expect(listed.code).toBe(0);
    const path = countsFile("listed.json", listed.stdout);
    const result = await runCli(["inventory", "apply", "--json", path], { env: env() });
    expect(result.code).toBe(0);
    expect(report(result.stdout)).toMatchObject({ changed: 0, unchanged: 5, failed: 0 });
  });

  it("a refused key on the first fetch is exit 4, nothing applied", async () => {
    const path = countsFile("key.csv", "petId,quantity\n1,77\n");
    const result = await runCli(["inventory", "apply", path], {
      env: { ...env(), PETSTORE_API_KEY: "wrong-key" },
    });
    expect(result.code).toBe(4);
    expect(await stock(env())).not.toContain("\n1,77,");
  });
});

describe("apply on a terminal", () => {
  const { env } = serverForBlock(SEED);

  it.skipIf(!HAS_SCRIPT)("prints the report with a coloured count and the changes", async () => {
    const path = countsFile("tty.csv", "petId,quantity\n1,4\n2,0\n");
    const result = await runCliInTty(["inventory", "apply", path], { env: env() });
    expect(result.code).toBe(0);
    // eslint-disable-next-line no-control-regex
    const plain = result.output.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "");
    expect(plain).toContain(`${path}: 1 changed, 1 unchanged, 0 failed\n`);
    expect(plain).toContain("  pet 1: 3 → 4\n");
    expect(result.output).toContain("\u001b[32m1 changed");
  });
});
