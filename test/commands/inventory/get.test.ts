import { describe, expect, it } from "vitest";
import { callsOf, mockAgent, ORIGIN, runFake } from "../fake-deps.js";
import { MAX_ID_TEXT as MAX_ID } from "../../support/ids.js";

function getting(petId: string, status: number, body: string, etag?: string) {
  const agent = mockAgent();
  agent
    .get(ORIGIN)
    .intercept({ path: `/v1/inventory/${petId}`, method: "GET" })
    .reply(status, body, {
      headers: { "content-type": "application/json", ...(etag === undefined ? {} : { etag }) },
    });
  return agent;
}

const ENTRY = '{"petId":42,"quantity":7,"status":"available"}';

describe("inventory get", () => {
  it("GETs /inventory/{petId} and prints one tab-separated line when piped", async () => {
    const agent = getting("42", 200, ENTRY, '"7"');
    const result = await runFake(["inventory", "get", "42"], { agent });
    expect(result).toMatchObject({ code: 0, stdout: "42\t7\tavailable\n", stderr: "" });
    expect(callsOf(agent)).toEqual(["GET /v1/inventory/42"]);
  });

  it("prints a one-row table without totals on a terminal", async () => {
    const agent = getting("42", 200, ENTRY);
    const result = await runFake(["--no-color", "inventory", "get", "42"], { agent, isTTY: true });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/petId.*quantity.*status/);
    expect(result.stdout).toMatch(/│ +42 │ +7 │ available │/);
    expect(result.stdout).not.toContain("in stock");
  });

  it("prints a JSON object with --json, the largest int64 petId exact", async () => {
    const agent = getting(MAX_ID, 200, `{"petId":${MAX_ID},"quantity":3,"status":"sold"}`);
    const result = await runFake(["inventory", "get", MAX_ID, "--json"], { agent });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `{\n  "petId": ${MAX_ID},\n  "quantity": 3,\n  "status": "sold"\n}\n`,
    );
  });

  it("prints CSV with a header with --csv", async () => {
    const agent = getting("42", 200, ENTRY);
    const result = await runFake(["inventory", "get", "42", "--csv"], { agent });
    expect(result).toMatchObject({
      code: 0,
      stdout: "petId,quantity,status\n42,7,available\n",
      stderr: "",
    });
  });

  it("refuses --json with --csv (exit 2) and sends nothing", async () => {
    const agent = mockAgent();
    const result = await runFake(["inventory", "get", "42", "--json", "--csv"], { agent });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("error: option '--json' cannot be used with option '--csv'");
    expect(callsOf(agent)).toEqual([]);
  });

  it("maps 404 to exit 5 with the server's code and a hint", async () => {
    const agent = getting(
      "99",
      404,
      '{"code":"pet_not_found","message":"no pet with id 99","status":404}',
    );
    const result = await runFake(["inventory", "get", "99"], { agent });
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
      const agent = mockAgent();
      const result = await runFake(["inventory", "get", petId], { agent });
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(new RegExp(`^error: invalid petId "${petId}": `));
      expect(callsOf(agent)).toEqual([]);
    },
  );
});
