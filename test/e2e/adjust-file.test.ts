/**
 * `inventory adjust --file` end to end: the real binary against the real `petstore serve`. A
 * day's sales applied exactly once however often the file is run, the day named by
 * --ref-prefix (the same bytes on two days are two days' sales); a file without refs refused; failures alone or, with
 * --atomic, of the whole file; a dry run; a server without the batch endpoint (a proxy that
 * answers the route 404); a read-only key; a bad file.
 */
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { tempDir } from "../support/temp-dir.js";
import { runCli } from "./support/cli.js";
import { replyJson, startFakeServer } from "./support/fake-server.js";
import { startHoldingProxy } from "./support/proxies.js";
import {
  API_KEY,
  serverForBlock,
  startServer,
  type RunningServer,
  type SeedFileEntry,
} from "./support/servers.js";

const SEED: SeedFileEntry[] = Array.from({ length: 5 }, (_, i) => ({
  petId: i + 1,
  name: `Pet ${i + 1}`,
  status: "available",
  quantity: 10,
}));

const files = tempDir("petstore-adjust-file-e2e-");
afterAll(() => {
  files.remove();
});

function salesFile(name: string, text: string): string {
  const path = join(files.dir, name);
  writeFileSync(path, text);
  return path;
}

async function stock(env: Record<string, string>): Promise<Map<number, number>> {
  const result = await runCli(["inventory", "list", "--json"], { env });
  expect(result.code).toBe(0);
  const items = JSON.parse(result.stdout) as { petId: number; quantity: number }[];
  return new Map(items.map((item) => [item.petId, item.quantity]));
}

describe("adjust --file: a day's sales, exactly once", () => {
  const { env } = serverForBlock(SEED);

  it("applies the file, and a second run changes nothing: 0 changed, all duplicate, exit 0", async () => {
    const text = "petId,delta,ref\n1,-1\n2,-2\n1,-3,till-4711\n3,+5\n";
    const path = salesFile("sales-2026-11-24.csv", text);
    const day = ["--ref-prefix", "till-1/2026-11-24"];

    const first = await runCli(["inventory", "adjust", "--file", path, ...day], { env: env() });
    expect(first).toEqual({
      code: 0,
      stdout:
        `${path}: 4 changed, 0 already applied (duplicate), 0 failed\n` +
        "changed:\n" +
        "  pet 1: 10 -> 9 (-1)\n" +
        "  pet 2: 10 -> 8 (-2)\n" +
        "  pet 1: 9 -> 6 (-3)\n" +
        "  pet 3: 10 -> 15 (+5)\n",
      stderr: "",
    });
    const after = await stock(env());
    expect([after.get(1), after.get(2), after.get(3)]).toEqual([6, 8, 15]);

    const again = await runCli(["inventory", "adjust", "--file", path, ...day], { env: env() });
    expect(again).toEqual({
      code: 0,
      stdout: `${path}: 0 changed, 4 already applied (duplicate), 0 failed\n`,
      stderr: "",
    });
    const json = await runCli(["inventory", "adjust", "--file", path, ...day, "--json"], {
      env: env(),
    });
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as {
      changed: number;
      unchanged: number;
      results: { outcome: string; ref: string }[];
    };
    expect(report).toMatchObject({ changed: 0, unchanged: 4, failed: 0 });
    expect(report.results.map((result) => [result.outcome, result.ref])).toEqual([
      ["duplicate", "till-1/2026-11-24:1"],
      ["duplicate", "till-1/2026-11-24:2"],
      ["duplicate", "till-4711"],
      ["duplicate", "till-1/2026-11-24:4"],
    ]);
    expect(await stock(env())).toEqual(after);
  });

  it("a cron job's file, the same bytes at the same path on two days: each day's prefix applies once", async () => {
    // The till writes sales.csv every night; two days can sell the same: byte for byte equal.
    const path = join(files.dir, "sales.csv");
    const nightly = async (date: string) => {
      writeFileSync(path, "petId,delta\n4,-1\n");
      return runCli(["inventory", "adjust", "--file", path, "--ref-prefix", `till-1/${date}`], {
        env: env(),
      });
    };
    const before = (await stock(env())).get(4) ?? 0;
    const monday = await nightly("2026-11-23");
    expect(monday).toMatchObject({
      code: 0,
      stdout: `${path}: 1 changed, 0 already applied (duplicate), 0 failed\nchanged:\n  pet 4: ${before} -> ${before - 1} (-1)\n`,
    });
    const tuesday = await nightly("2026-11-24");
    expect(tuesday.stdout).toBe(
      `${path}: 1 changed, 0 already applied (duplicate), 0 failed\nchanged:\n  pet 4: ${before - 1} -> ${before - 2} (-1)\n`,
    );
    // Tuesday's job run again (a retry, a second cron line): nothing twice.
    const rerun = await nightly("2026-11-24");
    expect(rerun).toEqual({
      code: 0,
      stdout: `${path}: 0 changed, 1 already applied (duplicate), 0 failed\n`,
      stderr: "",
    });
    expect((await stock(env())).get(4)).toBe(before - 2);
  });

  it("rows without a ref and neither flag: exit 2 naming the line and the ways to fix it; the server untouched", async () => {
    const before = await stock(env());
    const path = salesFile("no-refs.csv", "petId,delta,ref\n1,-1,till-9/1\n2,-1\n");
    const result = await runCli(["inventory", "adjust", "--file", path], { env: env() });
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr:
        `error: ${path} line 3: a row without a ref, and neither --ref-prefix nor --no-ref was given; nothing was sent\n` +
        'hint: give each row its own ref (a ref column: petId,delta,ref), or name this run with --ref-prefix, as a cron line would: --ref-prefix "till-1/$(date +%F)" gives the rows till-1/2026-11-26:1, :2, ...; or --no-ref to apply these deltas again every time the file runs\n',
    });
    expect(await stock(env())).toEqual(before);
  });

  it("two rows with one ref: exit 2 naming both lines; the server untouched", async () => {
    const before = await stock(env());
    const path = salesFile("twice.csv", "petId,delta,ref\n1,-1,r-7\n2,-1,r-8\n1,-1,r-7\n");
    const result = await runCli(["inventory", "adjust", "--file", path], { env: env() });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(`error: ${path} line 4: ref "r-7" again: line 2 has it too\n`);
    expect(await stock(env())).toEqual(before);
  });

  it("--no-ref applies the file's deltas on every run", async () => {
    const path = salesFile("delivery.csv", "petId,delta\n5,+2\n");
    const before = (await stock(env())).get(5) ?? 0;
    for (let run = 1; run <= 2; run++) {
      const result = await runCli(["inventory", "adjust", "--file", path, "--no-ref"], {
        env: env(),
      });
      expect(result).toMatchObject({ code: 0, stderr: "" });
    }
    expect((await stock(env())).get(5)).toBe(before + 4);
  });

  it("reads JSON from stdin", async () => {
    const before = await stock(env());
    const input = '[{"petId": 4, "delta": 2, "ref": "delivery-88"}]';
    const result = await runCli(["inventory", "adjust", "--file", "-", "--json"], {
      env: env(),
      input,
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      changed: 1,
      unchanged: 0,
      failed: 0,
      notAttempted: 0,
      results: [
        {
          row: 1,
          line: 1,
          entry: 1,
          petId: 4,
          delta: 2,
          ref: "delivery-88",
          outcome: "changed",
          previous: before.get(4),
          quantity: (before.get(4) ?? 0) + 2,
        },
      ],
    });
  });

  it("a row below 0 and a row of an unknown pet fail alone: exit 7, the other applied", async () => {
    const before = await stock(env());
    const path = salesFile("bad-rows.csv", "petId,delta\n5,-1\n5,-100\n424242,-1\n");
    const result = await runCli(["inventory", "adjust", "--file", path, "--no-ref"], {
      env: env(),
    });
    expect(result.code).toBe(7);
    const five = before.get(5) ?? 0;
    expect(result.stdout).toBe(
      `${path}: 1 changed, 0 already applied (duplicate), 2 failed\n` +
        `changed:\n  pet 5: ${five} -> ${five - 1} (-1)\n` +
        "failed:\n" +
        `  line 3: pet 5 -100: would go below 0 (it holds ${five - 1}: -100 would make it ${five - 101})\n` +
        "  line 4: pet 424242 -1: no such pet\n",
    );
    expect(result.stderr).toContain(
      "error: 2 of 3 rows failed (the report lists them); the other 1 was applied\n",
    );
    expect((await stock(env())).get(5)).toBe(five - 1);
  });

  it("--atomic with a failing row: exit 7, nothing changed", async () => {
    const before = await stock(env());
    const path = salesFile("atomic.csv", "petId,delta\n1,-1\n2,-1000\n");
    const result = await runCli(["inventory", "adjust", "--file", path, "--no-ref", "--atomic"], {
      env: env(),
    });
    expect(result.code).toBe(7);
    expect(result.stdout).toContain(
      "2 failed (the atomic batch was rejected for 1 of them: nothing was changed)\n",
    );
    expect(result.stderr).toBe(
      "error: the atomic batch was rejected: 1 of 2 rows failed (the report lists them); nothing was changed\n" +
        "hint: fix the failed rows and run the file again: nothing of it was applied\n",
    );
    expect(await stock(env())).toEqual(before);
  });

  it("--dry-run says what would happen and changes nothing; the run then does it", async () => {
    const before = await stock(env());
    const path = salesFile("dry.csv", "petId,delta\n2,-1\n");
    const dry = await runCli(
      ["inventory", "adjust", "--file", path, "--ref-prefix", "dry/1", "--dry-run"],
      {
        env: env(),
      },
    );
    const two = before.get(2) ?? 0;
    expect(dry).toEqual({
      code: 0,
      stdout:
        `dry run of ${path}: 1 of 1 row would change, 0 already applied (duplicate), 0 would fail; nothing was changed\n` +
        `would change:\n  pet 2: ${two} -> ${two - 1} (-1)\n`,
      stderr: "",
    });
    expect(await stock(env())).toEqual(before);
    // A dry run writes no ref: the real run applies the row.
    const real = await runCli(["inventory", "adjust", "--file", path, "--ref-prefix", "dry/1"], {
      env: env(),
    });
    expect(real.code).toBe(0);
    expect((await stock(env())).get(2)).toBe(two - 1);
  });

  it("a bad file: exit 2 naming the line, nothing sent", async () => {
    const fake = await startFakeServer((_request, response) => {
      replyJson(response, 500, "{}");
    });
    const path = salesFile("bad.csv", "petId,delta\n1,-1\n2,0\n");
    const result = await runCli(["inventory", "adjust", "--file", path], {
      env: { PETSTORE_BASE_URL: fake.url, PETSTORE_API_KEY: API_KEY },
    });
    await fake.stop();
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr:
        `error: ${path} line 3: invalid delta "0": a delta of 0 changes nothing\n` +
        "hint: fix the file and run again; nothing was applied\n",
    });
    expect(fake.requests).toEqual([]);
  });
});

describe("adjust --file: a row with a field it does not know, or a count's", () => {
  it.each([
    [
      "ambiguous.csv",
      "petId,delta,quantity,ref\n1,-1,5,zz1\n",
      [],
      "line 1: the header has a quantity column: a file of changes holds deltas (petId,delta,ref) and a quantity is a count: post counts with `petstore inventory apply`, or take the column out of this file",
    ],
    [
      "ambiguous.json",
      '[{"petId":1,"delta":-1,"quantity":5,"ref":"zz1"}]',
      [],
      'entry 1 (line 1): unknown field "quantity" (allowed: petId, delta, ref)',
    ],
    [
      "typo.json",
      '[{"petId":1,"delta":-1,"ref":"zz0"},\n{"petId":1,"delta":-1,"Ref":"zz1"}]',
      ["--ref-prefix", "p"],
      'entry 2 (line 2): unknown field "Ref" (allowed: petId, delta, ref; did you mean "ref"?)',
    ],
  ])(
    "%s: exit 2 naming the entry and the field, nothing sent",
    async (name, text, flags, problem) => {
      const fake = await startFakeServer((_request, response) => {
        replyJson(response, 500, "{}");
      });
      const path = salesFile(name, text);
      const result = await runCli(["inventory", "adjust", "--file", path, ...flags], {
        env: { PETSTORE_BASE_URL: fake.url, PETSTORE_API_KEY: API_KEY },
      });
      await fake.stop();
      expect(result).toEqual({
        code: 2,
        stdout: "",
        stderr: `error: ${path} ${problem}\nhint: fix the file and run again; nothing was applied\n`,
      });
      expect(fake.requests).toEqual([]);
    },
  );
});

describe("adjust --file against a server without the batch endpoint", () => {
  const { env } = serverForBlock(SEED);

  it("exit 2 with a clear error, nothing changed", async () => {
    const before = await stock(env());
    const proxy = await startHoldingProxy(env().PETSTORE_BASE_URL ?? "", {
      withoutBatchRoute: true,
    });
    proxy.release();
    try {
      const path = salesFile("spec-only.csv", "petId,delta,ref\n1,-1,s-1\n2,-1,s-2\n");
      const result = await runCli(["inventory", "adjust", "--file", path], {
        env: env(proxy.url),
      });
      expect(result).toEqual({
        code: 2,
        stdout: "",
        stderr:
          "error: adjust --file needs the batch endpoint, and the server has no batch endpoint (POST /inventory/batch answered 404); nothing was changed\n" +
          "hint: use a server that has POST /inventory/batch (petstore serve does); the server keeps each row's ref there, which is what applies a file once however often it runs\n",
      });
      expect(proxy.batchesRefused()).toBe(1);
      expect(proxy.writes).toEqual([]);
    } finally {
      await proxy.stop();
    }
    expect(await stock(env())).toEqual(before);
  });
});

describe("adjust --file with a read-only key", () => {
  const temp = tempDir();
  let server: RunningServer | undefined;
  afterAll(async () => {
    await server?.stop();
    temp.remove();
  });

  it("exit 4, nothing changed", async () => {
    const readKey = "report-key-2d7a61";
    const keysFile = join(temp.dir, "keys.txt");
    const sha = (key: string) => createHash("sha256").update(key).digest("hex");
    writeFileSync(
      keysFile,
      `till write sha256:${sha(API_KEY)}\nreport read sha256:${sha(readKey)}\n`,
    );
    server = await startServer({
      seed: SEED,
      args: ["--api-keys-file", keysFile],
      env: { PETSTORE_API_KEYS: "" },
    });
    const path = salesFile("read-key.csv", "petId,delta,ref\n1,-1,k-1\n");
    const result = await runCli(["inventory", "adjust", "--file", path], {
      env: { PETSTORE_BASE_URL: server.url, PETSTORE_API_KEY: readKey },
    });
    expect(result.code).toBe(4);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("(forbidden, HTTP 403)\n");
    expect(result.stderr).toContain("is read-only (scope read)");
    const after = await stock({ PETSTORE_BASE_URL: server.url, PETSTORE_API_KEY: API_KEY });
    expect(after.get(1)).toBe(10);
  });
});
