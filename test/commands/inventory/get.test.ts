import { describe, expect, it } from "vitest";
import { HttpStubs, runFake } from "../fake-deps.js";
import { MAX_ID_TEXT as MAX_ID } from "../../support/ids.js";

function getting(petId: string, status: number, body: string, etag?: string) {
  const stubs = new HttpStubs();
  stubs.on("GET", `/v1/inventory/${petId}`).reply(status, body, {
    headers: { "content-type": "application/json", ...(etag === undefined ? {} : { etag }) },
  });
  return stubs;
}

const ENTRY = '{"petId":42,"quantity":7,"status":"available"}';

describe("inventory get", () => {
  it("GETs /inventory/{petId} and prints one tab-separated line when piped", async () => {
    const stubs = getting("42", 200, ENTRY, '"7"');
    const result = await runFake(["inventory", "get", "42"], { stubs });
    expect(result).toMatchObject({ code: 0, stdout: "42\t7\tavailable\n", stderr: "" });
    expect(stubs.calls()).toEqual(["GET /v1/inventory/42"]);
  });

  it("prints a one-row table without totals on a terminal", async () => {
    const stubs = getting("42", 200, ENTRY);
    const result = await runFake(["--no-color", "inventory", "get", "42"], { stubs, isTTY: true });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/petId.*quantity.*status/);
    expect(result.stdout).toMatch(/│ +42 │ +7 │ available │/);
    expect(result.stdout).not.toContain("in stock");
  });

  it("prints a JSON object with --json, the largest int64 petId exact", async () => {
    const stubs = getting(MAX_ID, 200, `{"petId":${MAX_ID},"quantity":3,"status":"sold"}`);
    const result = await runFake(["inventory", "get", MAX_ID, "--json"], { stubs });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `{\n  "petId": ${MAX_ID},\n  "quantity": 3,\n  "status": "sold"\n}\n`,
    );
  });

  it("prints CSV with a header with --csv", async () => {
    const stubs = getting("42", 200, ENTRY);
    const result = await runFake(["inventory", "get", "42", "--csv"], { stubs });
    expect(result).toMatchObject({
      code: 0,
      stdout: "petId,quantity,status\n42,7,available\n",
      stderr: "",
    });
  });

  it("refuses --json with --csv (exit 2) and sends nothing", async () => {
    const stubs = new HttpStubs();
    const result = await runFake(["inventory", "get", "42", "--json", "--csv"], { stubs });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("error: option '--json' cannot be used with option '--csv'");
    expect(stubs.calls()).toEqual([]);
  });

  it("maps 404 to exit 5 with the server's code and a hint", async () => {
    const stubs = getting(
      "99",
      404,
      '{"code":"pet_not_found","message":"no pet with id 99","status":404}',
    );
    const result = await runFake(["inventory", "get", "99"], { stubs });
    expect(result).toMatchObject({
      code: 5,
      stdout: "",
      stderr:
        "error: no pet with id 99 (pet_not_found, HTTP 404)\n" +
        "hint: check the petId; petstore inventory list shows the known ones\n",
    });
  });

  it.each(["0", "-1", "abc", "042"])(
    "rejects petId %j locally with exit 2 and sends nothing",
    async (petId) => {
      const stubs = new HttpStubs();
      const result = await runFake(["inventory", "get", petId], { stubs });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(new RegExp(`^error: invalid petId "${petId}": `));
      expect(stubs.calls()).toEqual([]);
    },
  );
});
