import { describe, expect, it } from "vitest";
import { localTime } from "../../../src/text/local-time.js";
import { HttpStubs, runFake } from "../fake-deps.js";
import { MAX_ID_TEXT as MAX_ID } from "../../support/ids.js";

function listing(petId: string, query: string, status: number, body: string) {
  const stubs = new HttpStubs();
  stubs
    .on("GET", `/v1/inventory/${petId}/history${query}`)
    .reply(status, body, { headers: { "content-type": "application/json" } });
  return stubs;
}

const RECORDS = JSON.stringify([
  {
    at: "2026-11-22T14:03:12.481Z",
    petId: 42,
    previous: 8,
    quantity: 7,
    keyName: "till-1",
    requestId: "0b6f4c1e-8f0a-4d7e-9a57-2f1c3d4e5a6b",
    reason: "sale",
    ref: "till-1:0001",
  },
  {
    at: "2026-11-22T02:00:04.017Z",
    petId: 42,
    previous: 6,
    quantity: 8,
    keyName: "cron",
    requestId: "5d1e7a90-3c2b-4f8e-b1a6-9e0d4c7f2a13",
    reason: null,
    ref: null,
  },
  {
    at: "2026-11-01T09:00:00.000Z",
    petId: 42,
    previous: null,
    quantity: 6,
    keyName: null,
    requestId: null,
    reason: "seed pets.json",
  },
]);

describe("inventory history", () => {
  it("GETs the last 20 changes and prints one tab-separated line each when piped, ISO times", async () => {
    const stubs = listing("42", "?limit=20", 200, RECORDS);
    const result = await runFake(["inventory", "history", "42"], { stubs });
    expect(result).toMatchObject({
      code: 0,
      stderr: "",
      stdout:
        "2026-11-22T14:03:12.481Z\t42\t8\t7\ttill-1\t0b6f4c1e-8f0a-4d7e-9a57-2f1c3d4e5a6b\tsale\ttill-1:0001\n" +
        "2026-11-22T02:00:04.017Z\t42\t6\t8\tcron\t5d1e7a90-3c2b-4f8e-b1a6-9e0d4c7f2a13\t\t\n" +
        // The seed record comes from a server without refs (as one implementing only the spec).
        "2026-11-01T09:00:00.000Z\t42\t\t6\t\t\tseed pets.json\t\n",
    });
    expect(stubs.calls()).toEqual(["GET /v1/inventory/42/history?limit=20"]);
  });

  it("prints a table with local times and each change's sign on a terminal", async () => {
    const stubs = listing("42", "?limit=20", 200, RECORDS);
    const result = await runFake(["--no-color", "inventory", "history", "42"], {
      stubs,
      isTTY: true,
    });
    expect(result.code).toBe(0);
    const local = (iso: string) => {
      const d = new Date(iso);
      const p = (n: number) => String(n).padStart(2, "0");
      return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
    };
    expect(result.stdout).toMatch(/when.*previous.*quantity.*change.*key.*reason.*ref/);
    expect(result.stdout).toMatch(
      new RegExp(
        `${local("2026-11-22T14:03:12.481Z")} │ +8 │ +7 │ +-1 │ till-1 +│ sale +│ till-1:0001`,
      ),
    );
    expect(result.stdout).toMatch(/│ +6 │ +8 │ +\+2 │ cron/);
    expect(result.stdout).toMatch(/│ +│ +6 │ +│ +│ seed pets\.json/);
  });

  it("fits the table to the terminal's width, wrapping a long reason and ref between lines", async () => {
    const reason = "delivery from the wholesaler, invoice 4411, three boxes short: see the note";
    const ref = "till-1/2026-11-27/receipt-000000000000000042";
    const records = JSON.stringify([{ ...(JSON.parse(RECORDS) as object[])[0], reason, ref }]);
    const result = await runFake(["--no-color", "inventory", "history", "42"], {
      stubs: listing("42", "?limit=20", 200, records),
      isTTY: true,
      columns: 100,
    });
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThanOrEqual(100);
    expect(lines.length).toBeGreaterThan(5);
    // Every word of the reason and every character of the ref is there, in order.
    const cells = (index: number) =>
      lines
        .filter((line) => line.startsWith("│"))
        .slice(1)
        .map((line) => line.split("│")[index]?.trim() ?? "");
    expect(cells(6).join(" ").replace(/ +/g, " ").trim()).toBe(reason);
    expect(cells(7).join("")).toBe(ref);
  });

  it("shows each change as its lines on an 80-column terminal, where the table with a ref cannot fit", async () => {
    const reason = "delivery from the wholesaler, invoice 4411, three boxes short: see the note";
    const ref = "till-1/2026-11-27/receipt-000000000000000042";
    const [first, ...rest] = JSON.parse(RECORDS) as object[];
    const records = JSON.stringify([{ ...first, reason, ref }, ...rest]);
    const result = await runFake(["--no-color", "inventory", "history", "42"], {
      stubs: listing("42", "?limit=20", 200, records),
      isTTY: true,
      columns: 80,
    });
    expect(result.code).toBe(0);
    expect(result.stdout.split("\n").slice(0, 4)).toEqual([
      `${localTime("2026-11-22T14:03:12.481Z")}  8 → 7  -1  by till-1`,
      `    ref ${ref}`,
      "    delivery from the wholesaler, invoice 4411, three boxes short: see the note",
      `${localTime("2026-11-22T02:00:04.017Z")}  6 → 8  +2  by cron`,
    ]);
    // The seed's record: where the stock started, its reason below.
    expect(result.stdout).toMatch(/\n\S+ \S+ {2}→ 6\n {4}seed pets\.json\n$/);
  });

  it("prints the records as JSON with --json, int64 petIds exact, and asks for --limit", async () => {
    const body = `[{"at":"2026-11-22T14:03:12.481Z","petId":${MAX_ID},"previous":1,"quantity":2,"keyName":"k","requestId":"r","reason":null}]`;
    const stubs = listing(MAX_ID, "?limit=1", 200, body);
    const result = await runFake(["inventory", "history", MAX_ID, "--limit", "1", "--json"], {
      stubs,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`"petId": ${MAX_ID},`);
    expect(JSON.parse(result.stdout.replace(MAX_ID, "1"))).toEqual([
      {
        at: "2026-11-22T14:03:12.481Z",
        petId: 1,
        previous: 1,
        quantity: 2,
        keyName: "k",
        requestId: "r",
        reason: null,
        ref: null,
      },
    ]);
  });

  it("leaves the ref column out of the table when no record has a ref", async () => {
    const body = `[{"at":"2026-11-22T14:03:12.481Z","petId":42,"previous":1,"quantity":2,"keyName":"k","requestId":"r","reason":null,"ref":null}]`;
    const stubs = listing("42", "?limit=20", 200, body);
    const result = await runFake(["--no-color", "inventory", "history", "42"], {
      stubs,
      isTTY: true,
    });
    expect(result.stdout).toMatch(/when.*reason/);
    expect(result.stdout).not.toMatch(/\bref\b/);
  });

  it("says so on a terminal when no change was kept", async () => {
    const stubs = listing("42", "?limit=20", 200, "[]");
    const result = await runFake(["inventory", "history", "42"], { stubs, isTTY: true });
    expect(result).toMatchObject({
      code: 0,
      stdout: expect.stringContaining("no changes of pet 42") as string,
    });
  });

  it("shows a control character a server sent as U+FFFD, never as a terminal escape", async () => {
    const body = JSON.stringify([
      {
        at: "2026-11-22T14:03:12.481Z",
        petId: 42,
        previous: 1,
        quantity: 2,
        keyName: "k\u001b]0;pwned\u0007",
        requestId: "r",
        reason: "a\u001b[2Jb",
      },
    ]);
    const stubs = listing("42", "?limit=20", 200, body);
    const result = await runFake(["--no-color", "inventory", "history", "42"], {
      stubs,
      isTTY: true,
    });
    expect(result.stdout).not.toContain("\u001b");
    expect(result.stdout).toContain("a\uFFFD[2Jb");
  });

  it.each(["0", "1001", "abc", "07"])(
    "refuses --limit %s (exit 2) and sends nothing",
    async (limit) => {
      const stubs = new HttpStubs();
      const result = await runFake(["inventory", "history", "42", "--limit", limit], { stubs });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("--limit");
      expect(stubs.calls()).toEqual([]);
    },
  );

  it("exits 5 on a 404 for an unknown pet, naming it", async () => {
    const stubs = listing(
      "404",
      "?limit=20",
      404,
      '{"code":"pet_not_found","message":"no pet with petId 404","status":404}',
    );
    const result = await runFake(["inventory", "history", "404"], { stubs });
    expect(result.code).toBe(5);
    expect(result.stderr).toContain("no pet with petId 404");
  });
});
